/**
 * Resolution X and Y: typed freely and clamped to 128..4096 when the field is left;
 * presets (and more under 'More'); dragging vertically over a field changes its value
 * once the pointer has moved 30 px (then one step per further 30 px). Arrow keys do
 * the same from the keyboard.
 */
import { useEffect, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react';
import { clampResolution, MAX_RESOLUTION, MIN_RESOLUTION, RESOLUTION_DRAG_THRESHOLD_PX, RESOLUTION_PRESETS, type ResolutionPreset } from '#shared/resolution';

/** Pixels added per 30 px of drag or per arrow key press (10× with Shift). */
export const RESOLUTION_STEP = 16;

/** The value after a vertical drag of `dy` px (positive = upwards), or null below the threshold. */
export function dragValue(start: number, dy: number): number | null {
  const steps = Math.trunc(dy / RESOLUTION_DRAG_THRESHOLD_PX);
  return steps === 0 ? null : clampResolution(start + steps * RESOLUTION_STEP);
}

function ResolutionInput({ id, label, value, onChange }: { id: string; label: string; value: string; onChange: (value: string) => void }) {
  const drag = useRef<{ y: number; start: number; active: boolean; pointerId: number } | null>(null);

  const onPointerDown = (event: PointerEvent<HTMLInputElement>) => {
    if (event.button !== 0) return;
    drag.current = { y: event.clientY, start: clampResolution(value), active: false, pointerId: event.pointerId };
    // Captured from the start: the field is shorter than the 30 px threshold, so a drag
    // begun mid-field leaves it before it counts, and its moves must still come here.
    event.currentTarget.setPointerCapture?.(event.pointerId);
  };
  const onPointerMove = (event: PointerEvent<HTMLInputElement>) => {
    const state = drag.current;
    if (!state || state.pointerId !== event.pointerId) return;
    const next = dragValue(state.start, state.y - event.clientY);
    if (next === null) return;
    state.active = true;
    event.preventDefault();
    onChange(String(next));
  };
  const onPointerUp = (event: PointerEvent<HTMLInputElement>) => {
    const state = drag.current;
    if (state && event.currentTarget.hasPointerCapture?.(state.pointerId)) event.currentTarget.releasePointerCapture(state.pointerId);
    if (state?.active) event.preventDefault();
    drag.current = null;
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key !== 'ArrowUp' && event.key !== 'ArrowDown') return;
    event.preventDefault();
    const step = RESOLUTION_STEP * (event.shiftKey ? 10 : 1) * (event.key === 'ArrowUp' ? 1 : -1);
    onChange(String(clampResolution(clampResolution(value) + step)));
  };

  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        className="input resolution-input"
        inputMode="numeric"
        value={value}
        aria-describedby="resolution-hint"
        onChange={(event) => onChange(event.target.value.replace(/\D/g, '').slice(0, 5))}
        onBlur={() => onChange(String(clampResolution(value)))}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={onPointerUp}
        onKeyDown={onKeyDown}
      />
    </div>
  );
}

export function ResolutionFields({ x, y, onChange }: { x: string; y: string; onChange: (x: string, y: string) => void }) {
  const [moreOpen, setMoreOpen] = useState(false);
  const moreRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!moreOpen) return;
    const close = (event: MouseEvent) => {
      if (!moreRef.current?.contains(event.target as Node)) setMoreOpen(false);
    };
    document.addEventListener('mousedown', close);
    return () => document.removeEventListener('mousedown', close);
  }, [moreOpen]);

  const isCurrent = (preset: ResolutionPreset) => String(preset.width) === x && String(preset.height) === y;
  const apply = (preset: ResolutionPreset) => {
    onChange(String(preset.width), String(preset.height));
    setMoreOpen(false);
  };

  return (
    <div>
      <div className="resolution-row">
        <ResolutionInput id="resolution-x" label="Resolution X (width)" value={x} onChange={(value) => onChange(value, y)} />
        <span className="times" aria-hidden="true">
          ×
        </span>
        <ResolutionInput id="resolution-y" label="Resolution Y (height)" value={y} onChange={(value) => onChange(x, value)} />
      </div>
      <p className="hint" id="resolution-hint">
        {MIN_RESOLUTION}–{MAX_RESOLUTION} px. Drag up or down over a field, or use the arrow keys, to adjust.
      </p>
      <div className="presets" role="group" aria-label="Resolution presets">
        {RESOLUTION_PRESETS.main.map((preset) => (
          <button key={preset.label} type="button" className="preset" aria-pressed={isCurrent(preset)} onClick={() => apply(preset)}>
            <span>
              {preset.width}×{preset.height}
            </span>
            <small>{preset.label}</small>
          </button>
        ))}
        <div ref={moreRef} style={{ position: 'relative' }}>
          <button type="button" className="preset" aria-expanded={moreOpen} aria-haspopup="true" onClick={() => setMoreOpen((open) => !open)}>
            <span>More</span>
            <small>presets ▾</small>
          </button>
          {moreOpen && (
            <div className="menu" role="group" aria-label="More resolution presets" onKeyDown={(event) => event.key === 'Escape' && setMoreOpen(false)}>
              {RESOLUTION_PRESETS.more.map((preset) => (
                <button key={`${preset.label}-more`} type="button" onClick={() => apply(preset)}>
                  <span>
                    {preset.width}×{preset.height}
                  </span>
                  <span className="muted">{preset.label}</span>
                </button>
              ))}
            </div>
          )}
        </div>
      </div>
    </div>
  );
}
