/**
 * The live preview in Animation mode: the strip's frames (each marked PREVIEW by the renderer) played as a loop at the
 * clip's own pace, each frame shown for the stretch of the clip it stands for, so a reveal or a turn moves as the paid
 * animation will. Under it a scrubber: a range input, so arrows, Page Up/Down, Home and End move it and a screen reader
 * reads its value as the clip's frame ("frame 35 of 120"). Moving it pauses the loop; the button plays it again. A
 * customer who asked for reduced motion gets the first frame and the scrubber, not a loop.
 */
import { useEffect, useState } from 'react';
import type { LivePreviewStrip } from '#shared/api-types';
import { FPS } from '#shared/frames';

type Strip = LivePreviewStrip['strip'];

/** A frame is shown at least this long, however short the clip: a faster flicker reads as noise, not motion. */
const SHORTEST_FRAME_MS = 120;

/**
 * The clip's frames the strip's frame at `index` stands for: from halfway after the frame before it to halfway to the
 * frame after it (the first from the clip's start, the last to its end), so frames picked unevenly (an audio scene's
 * loudest moments) keep the clip's pace and a loop lasts as long as the clip.
 */
function stretchOf(strip: Strip, index: number): number {
  const frames = strip.frames.map((frame) => frame.frame);
  const from = index === 0 ? 1 : (frames[index - 1] + frames[index]) / 2;
  const to = index === frames.length - 1 ? strip.clipFrames + 1 : (frames[index] + frames[index + 1]) / 2;
  return to - from;
}

const prefersReducedMotion = () => typeof window.matchMedia === 'function' && window.matchMedia('(prefers-reduced-motion: reduce)').matches;

export function LiveStrip({ title, strip, updating }: { title: string; strip: Strip; updating: boolean }) {
  const count = strip.frames.length;
  const [shown, setShown] = useState(0);
  const [playing, setPlaying] = useState(() => !prefersReducedMotion());
  // A newer strip (the customer's newer settings) starts from its first frame.
  const [current, setCurrent] = useState(strip);
  if (current !== strip) {
    setCurrent(strip);
    setShown(0);
  }
  const index = Math.min(shown, count - 1);
  useEffect(() => {
    if (!playing || count < 2) return;
    const timer = setTimeout(() => setShown((index + 1) % count), Math.max(SHORTEST_FRAME_MS, (stretchOf(strip, index) / FPS) * 1000));
    return () => clearTimeout(timer);
  }, [playing, count, strip, index]);
  const frame = strip.frames[index];
  const position = `frame ${frame.frame} of ${strip.clipFrames}`;
  const choose = (chosen: number) => {
    setPlaying(false);
    setShown(chosen);
  };
  return (
    <>
      <div className="preview-area">
        <img className="live-picture" src={frame.image} alt={`${title} live preview, ${position}`} />
        <span className="preview-caption">
          Live preview · {count} frames
          {updating && ' · Updating…'}
        </span>
      </div>
      <div className="strip-controls">
        <button type="button" className="btn btn-secondary btn-small" onClick={() => setPlaying(!playing)} aria-label={playing ? 'Pause the live preview' : 'Play the live preview'}>
          {playing ? 'Pause' : 'Play'}
        </button>
        <input
          type="range"
          min={0}
          max={count - 1}
          step={1}
          value={index}
          aria-label="Live preview frame"
          aria-valuetext={position}
          onChange={(event) => choose(Number(event.target.value))}
          onKeyDown={(event) => {
            // The range's own keys, kept here so every browser steps one frame of the strip at a time and pauses the loop.
            const to = { ArrowRight: index + 1, ArrowUp: index + 1, ArrowLeft: index - 1, ArrowDown: index - 1, PageUp: index + 1, PageDown: index - 1, Home: 0, End: count - 1 }[event.key];
            if (to === undefined) return;
            event.preventDefault();
            choose(Math.max(0, Math.min(count - 1, to)));
          }}
        />
      </div>
    </>
  );
}
