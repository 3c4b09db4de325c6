/**
 * 'Image Alignment Preview' for image scenes: the upload under the scene's template
 * overlay (when it has one), with scale 50..150 %, position, overlay opacity 0..100 and
 * the four blend modes, and a warning when the aspect ratios differ by more than 1 %.
 */
import { useState } from 'react';
import type { Scene } from '../../../shared/catalogue';
import { ALIGNMENT, aspectMismatch } from '../../../shared/files';
import { Notice } from '../components/ui';
import type { AlignmentState, UploadState } from './form-state';
import { uploadAspectRatio } from './form-state';

const BLEND_LABELS: Record<string, string> = { normal: 'Normal', multiply: 'Multiply', difference: 'Difference', overlay: 'Overlay' };

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
        <div className="field">
          <label htmlFor="align-scale">Scale</label>
          <div className="slider-row">
            <input id="align-scale" type="range" min={ALIGNMENT.scale.min} max={ALIGNMENT.scale.max} step={1} value={alignment.scale} onChange={(e) => set({ scale: Number(e.target.value) })} />
            <output htmlFor="align-scale">{alignment.scale} %</output>
          </div>
        </div>
        <div className="field">
          <label htmlFor="align-x">Horizontal position</label>
          <div className="slider-row">
            <input id="align-x" type="range" min={ALIGNMENT.position.min} max={ALIGNMENT.position.max} step={1} value={alignment.x} onChange={(e) => set({ x: Number(e.target.value) })} />
            <output htmlFor="align-x">{alignment.x} %</output>
          </div>
        </div>
        <div className="field">
          <label htmlFor="align-y">Vertical position</label>
          <div className="slider-row">
            <input id="align-y" type="range" min={ALIGNMENT.position.min} max={ALIGNMENT.position.max} step={1} value={alignment.y} onChange={(e) => set({ y: Number(e.target.value) })} />
            <output htmlFor="align-y">{alignment.y} %</output>
          </div>
        </div>
        {scene.templateImage && (
          <>
            <div className="field">
              <label htmlFor="align-opacity">Template opacity</label>
              <div className="slider-row">
                <input id="align-opacity" type="range" min={ALIGNMENT.opacity.min} max={ALIGNMENT.opacity.max} step={1} value={alignment.opacity} onChange={(e) => set({ opacity: Number(e.target.value) })} />
                <output htmlFor="align-opacity">{alignment.opacity}</output>
              </div>
            </div>
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
          </>
        )}
      </div>
      <button type="button" className="btn btn-ghost btn-small" style={{ marginTop: 8 }} onClick={() => onChange({ ...alignment, scale: ALIGNMENT.scale.defaultValue, x: 0, y: 0 })}>
        Reset position
      </button>
    </div>
  );
}
