/**
 * The delivery format on the customise page: the formats this scene offers in the
 * chosen mode, the default first. The price does not depend on it, so changing it
 * changes nothing else on the page.
 */
import type { Scene } from '#shared/catalogue';
import type { RenderMode } from '#shared/scene-types';
import { OUTPUT_FORMATS, formatsFor, type OutputFormat } from '#shared/output-formats';

export function OutputFormatField({ scene, mode, value, onChange }: { scene: Scene; mode: RenderMode; value: OutputFormat; onChange: (format: OutputFormat) => void }) {
  const formats = formatsFor(scene, mode);
  return (
    <div className="output-formats" role="radiogroup" aria-label="Output format">
      {formats.map((format) => (
        <label key={format} className="checkbox">
          <input type="radio" name="output-format" value={format} checked={value === format} onChange={() => onChange(format)} />
          <span>
            <strong>{OUTPUT_FORMATS[format].label}</strong>
            <br />
            <span className="hint">{OUTPUT_FORMATS[format].description}</span>
          </span>
        </label>
      ))}
      <p className="hint" style={{ margin: 0 }}>
        {scene.canDropBackground
          ? 'This scene can drop its background: pick a format with transparency to composite it over your own footage.'
          : 'This scene keeps its background (no transparent format).'}{' '}
        The format does not change the price.
      </p>
    </div>
  );
}
