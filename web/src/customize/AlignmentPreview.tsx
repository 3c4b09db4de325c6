/**
 * 'Image Alignment Preview' for image scenes: the upload under the scene's template
 * overlay (when it has one), with scale 50..150 %, position, overlay opacity 0..100 and
 * the four blend modes (the overlay's, not the render's: the note says so), and a warning
 * when the aspect ratios differ by more than 1 %.
 */
import { useState } from 'react';
import type { Scene } from '#shared/catalogue';
import { ALIGNMENT, aspectMismatch, OVERLAY_ONLY_NOTE } from '#shared/alignment';
import { Notice } from '../components/ui';
import type { AlignmentState, UploadState } from './form-state';
import { uploadAspectRatio } from './form-state';

const BLEND_LABELS: Record<string, string> = { normal: 'Normal', multiply: 'Multiply', difference: 'Difference', overlay: 'Overlay' };

/** One labelled range input with its value beside it. */
function AlignmentSlider({
  id,
  label,
  range,
  value,
  unit,
  onValue,
}: {
  id: string;
  label: string;
  range: { min: number; max: number };
  value: number;
  unit?: string;
  onValue: (value: number) => void;
}) {
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      <div className="slider-row">
        <input id={id} type="range" min={range.min} max={range.max} step={1} value={value} onChange={(e) => onValue(Number(e.target.value))} />
        <output htmlFor={id}>
          {value}
          {unit}
        </output>
      </div>
    </div>
  );
}

export function AlignmentPreview({
  scene,
  upload,
  alignment,
  outputRatio,
  onChange,
  onTemplateRatio,
}: {
  scene: Scene;
  upload: UploadState;
  alignment: AlignmentState;
  /** resolutionX / resolutionY: the frame compared against when the scene has no template. */
  outputRatio: number;
  onChange: (alignment: AlignmentState) => void;
  onTemplateRatio: (ratio: number | null) => void;
}) {
  const [templateRatio, setTemplateRatio] = useState<number | null>(null);
  const [templateFailed, setTemplateFailed] = useState(false);
  const hasTemplate = Boolean(scene.templateImage) && !templateFailed;
  const frameRatio = (hasTemplate && templateRatio) || outputRatio;
  const uploadRatio = uploadAspectRatio(upload);
  const mismatch = uploadRatio !== null && aspectMismatch(uploadRatio, frameRatio);
  const set = (changes: Partial<AlignmentState>) => onChange({ ...alignment, ...changes });

  return (
    <div>
      <div className="alignment-stage" style={{ aspectRatio: String(frameRatio) }}>
        {upload.previewUrl && (
          <img
            className="upload-layer"
            src={upload.previewUrl}
            alt="Your uploaded image, as positioned in the render"
            style={{ transform: `translate(${alignment.x}%, ${alignment.y}%) scale(${alignment.scale / 100})` }}
          />
        )}
        {hasTemplate && (
          <img
            className="template-layer"
            src={scene.templateImage}
            alt="Template overlay"
            style={{ opacity: alignment.opacity / 100, mixBlendMode: alignment.blendMode }}
            onLoad={(event) => {
              const ratio = event.currentTarget.naturalWidth / event.currentTarget.naturalHeight;
              setTemplateRatio(ratio);
              onTemplateRatio(ratio);
            }}
            onError={() => {
              setTemplateFailed(true);
              onTemplateRatio(null);
            }}
          />
        )}
      </div>
      {mismatch && uploadRatio !== null && (
        <div style={{ marginTop: 12 }}>
          <Notice kind="warning" title="Aspect ratio mismatch">
            Your image is {uploadRatio.toFixed(2)}:1 but the {hasTemplate ? 'template' : 'render frame'} is {frameRatio.toFixed(2)}:1 (more
            than 1 % apart). Parts of the image may be cropped or leave empty space — adjust the scale and position, or
            upload an image with matching proportions.
          </Notice>
        </div>
      )}
      <div className="alignment-controls">
        <AlignmentSlider id="align-scale" label="Scale" range={ALIGNMENT.scale} value={alignment.scale} unit=" %" onValue={(scale) => set({ scale })} />
        <AlignmentSlider id="align-x" label="Horizontal position" range={ALIGNMENT.position} value={alignment.x} unit=" %" onValue={(x) => set({ x })} />
        <AlignmentSlider id="align-y" label="Vertical position" range={ALIGNMENT.position} value={alignment.y} unit=" %" onValue={(y) => set({ y })} />
        {scene.templateImage && (
          <>
            <AlignmentSlider id="align-opacity" label="Template opacity" range={ALIGNMENT.opacity} value={alignment.opacity} onValue={(opacity) => set({ opacity })} />
            <div className="field">
              <label htmlFor="align-blend">Blend mode</label>
              <select id="align-blend" className="input" value={alignment.blendMode} onChange={(e) => set({ blendMode: e.target.value as AlignmentState['blendMode'] })}>
                {ALIGNMENT.blendModes.map((mode) => (
                  <option key={mode} value={mode}>
                    {BLEND_LABELS[mode]}
                  </option>
                ))}
              </select>
            </div>
            <p className="hint" id="align-overlay-note">
              {OVERLAY_ONLY_NOTE}
            </p>
          </>
        )}
      </div>
      <button type="button" className="btn btn-ghost btn-small" style={{ marginTop: 8 }} onClick={() => onChange({ ...alignment, scale: ALIGNMENT.scale.defaultValue, x: 0, y: 0 })}>
        Reset position
      </button>
    </div>
  );
}
