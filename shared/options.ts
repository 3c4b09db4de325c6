/**
 * Scene options: serialised as 'key:value' pairs joined with ';',
 * the form the job stores and the worker receives.
 */
import { BACKGROUND_STYLE_OPTION, type SceneDefinition } from './catalogue';
import { invalidOption, unknownOption } from './messages';

export type OptionValues = Record<string, string>;

type SceneWithOptions = Pick<SceneDefinition, 'optionsConfig'>;

export function serializeOptions(options: Readonly<Record<string, string | number>>): string {
  return Object.entries(options)
    .map(([key, value]) => `${key}:${value}`)
    .join(';');
}

/**
 * Parses 'key:value;key:value'. Empty parts and parts without a key are ignored; a value
 * may itself contain ':' (split at the first one). Built with Object.fromEntries so a
 * '__proto__' key stays an ordinary property.
 */
export function parseOptions(serialized: string): OptionValues {
  const entries: [string, string][] = [];
  for (const part of serialized.split(';')) {
    const separator = part.indexOf(':');
    const key = part.slice(0, Math.max(separator, 0)).trim();
    if (separator < 0 || key === '') continue;
    entries.push([key, part.slice(separator + 1).trim()]);
  }
  return Object.fromEntries(entries);
}

/** The values the options form starts with: first style, the picker's colour, each slider's default. */
export function defaultOptions(scene: SceneWithOptions): OptionValues {
  const { backgroundStyles, colorPicker, sliders = [] } = scene.optionsConfig;
  const values: OptionValues = {};
  if (backgroundStyles?.length) values[BACKGROUND_STYLE_OPTION] = backgroundStyles[0].id;
  if (colorPicker) values[colorPicker.id] = colorPicker.defaultValue;
  for (const slider of sliders) values[slider.id] = String(slider.defaultValue);
  return values;
}

const HEX_COLOR = /^#[0-9a-f]{6}$/i;
const DECIMAL = /^-?\d+(\.\d+)?$/;

/** One rule per option key the scene accepts: true when the value is allowed. */
function optionRules(scene: SceneWithOptions): Map<string, (value: string) => boolean> {
  const { backgroundStyles, colorPicker, sliders = [] } = scene.optionsConfig;
  const rules = new Map<string, (value: string) => boolean>();
  if (backgroundStyles?.length) {
    rules.set(BACKGROUND_STYLE_OPTION, (value) => backgroundStyles.some((style) => style.id === value));
  }
  if (colorPicker) rules.set(colorPicker.id, (value) => HEX_COLOR.test(value));
  for (const slider of sliders) {
    rules.set(slider.id, (value) => DECIMAL.test(value) && Number(value) >= slider.min && Number(value) <= slider.max);
  }
  return rules;
}

/**
 * The first problem with an options string (or parsed values) for a scene, or null when
 * it is valid: an unknown key, or a value outside the scene's optionsConfig. Missing
 * keys are fine, they take the defaults.
 */
export function validateOptions(scene: SceneWithOptions, options: string | OptionValues): string | null {
  const values = typeof options === 'string' ? parseOptions(options) : options;
  const rules = optionRules(scene);
  for (const [key, value] of Object.entries(values)) {
    const allowed = rules.get(key);
    if (!allowed) return unknownOption(key);
    if (!allowed(value)) return invalidOption(key);
  }
  return null;
}

/**
 * The complete options a job renders with: the scene defaults overlaid with the user's
 * (validated) choices, in canonical order. The server stores this, so the worker never
 * has to guess a default.
 */
export function resolveOptions(scene: SceneWithOptions, options: string | OptionValues): OptionValues {
  const values = typeof options === 'string' ? parseOptions(options) : options;
  const resolved = defaultOptions(scene);
  for (const key of Object.keys(resolved)) {
    if (Object.hasOwn(values, key)) resolved[key] = values[key];
  }
  return resolved;
}
