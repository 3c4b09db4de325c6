/** 'Customize Options': background style choices, the colour picker and sliders of a scene. */
import type { Scene } from '#shared/catalogue';
import { BACKGROUND_STYLE_OPTION } from '#shared/catalogue';
import type { OptionValues } from '#shared/options';

export function hasOptions(scene: Scene): boolean {
  const { backgroundStyles, colorPicker, sliders } = scene.optionsConfig;
  return Boolean(backgroundStyles?.length || colorPicker || sliders?.length);
}

export function OptionsForm({ scene, values, onChange }: { scene: Scene; values: OptionValues; onChange: (key: string, value: string) => void }) {
  const { backgroundStyles, colorPicker, sliders = [] } = scene.optionsConfig;
  return (
    <div className="options-grid">
      {backgroundStyles && backgroundStyles.length > 0 && (
        <fieldset className="subfield">
          <legend className="field-label">Background Style</legend>
          <div className="choice-grid">
            {backgroundStyles.map((style) => (
              <label key={style.id} className="choice">
                <input
                  type="radio"
                  name={`${scene.id}-${BACKGROUND_STYLE_OPTION}`}
                  value={style.id}
                  checked={values[BACKGROUND_STYLE_OPTION] === style.id}
                  onChange={() => onChange(BACKGROUND_STYLE_OPTION, style.id)}
                />
                <span className="choice-card">
                  <strong>{style.label}</strong>
                  <small>{style.description}</small>
                </span>
              </label>
            ))}
          </div>
        </fieldset>
      )}
      {colorPicker && (
        <div className="field">
          <label htmlFor={`option-${colorPicker.id}`}>{colorPicker.label}</label>
          <div className="color-field">
            <input
              id={`option-${colorPicker.id}`}
              type="color"
              value={values[colorPicker.id] ?? colorPicker.defaultValue}
              onChange={(event) => onChange(colorPicker.id, event.target.value)}
            />
            <span className="mono">{(values[colorPicker.id] ?? colorPicker.defaultValue).toUpperCase()}</span>
            <button type="button" className="btn btn-ghost btn-small" onClick={() => onChange(colorPicker.id, colorPicker.defaultValue)}>
              Reset
            </button>
          </div>
        </div>
      )}
      {sliders.map((slider) => {
        const value = values[slider.id] ?? String(slider.defaultValue);
        return (
          <div className="field" key={slider.id}>
            <label htmlFor={`option-${slider.id}`}>{slider.label}</label>
            <div className="slider-row">
              <input
                id={`option-${slider.id}`}
                type="range"
                min={slider.min}
                max={slider.max}
                step={slider.step}
                value={value}
                onChange={(event) => onChange(slider.id, event.target.value)}
              />
              <output htmlFor={`option-${slider.id}`}>{value}</output>
            </div>
          </div>
        );
      })}
    </div>
  );
}
