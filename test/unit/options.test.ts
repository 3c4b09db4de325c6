import { describe, expect, it } from 'vitest';
import { getScene } from '#shared/catalogue';
import { defaultOptions, parseOptions, resolveOptions, serializeOptions, validateOptions } from '#shared/options';

const scene = (id: number) => getScene(id)!;

describe('serializeOptions and parseOptions', () => {
  it('when options are serialised, they read key:value joined by ;', () => {
    expect(serializeOptions({ backgroundStyle: 'cold', textColor: '#ffffff', intensity: 1.5 })).toBe(
      'backgroundStyle:cold;textColor:#ffffff;intensity:1.5',
    );
    expect(serializeOptions({})).toBe('');
  });

  it('when a serialised string is parsed back, it round-trips', () => {
    const options = { backgroundStyle: 'hot', sphereColor: '#7c3aed', intensity: '2' };
    expect(parseOptions(serializeOptions(options))).toEqual(options);
  });

  it('when parts are empty or have no key, they are ignored', () => {
    expect(parseOptions('')).toEqual({});
    expect(parseOptions(';;a:1;;novalue;:orphan;b:')).toEqual({ a: '1', b: '' });
    expect(parseOptions(' a : 1 ')).toEqual({ a: '1' });
  });

  it('when a value holds a colon, it is split at the first one only', () => {
    expect(parseOptions('time:12:30')).toEqual({ time: '12:30' });
  });

  it('when the key is __proto__, it stays a plain property', () => {
    const parsed = parseOptions('__proto__:x');
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(Object.keys(parsed)).toEqual(['__proto__']);
  });
});

describe('defaultOptions', () => {
  it('when a scene has styles, a picker and sliders, it takes the first style and each default', () => {
    expect(defaultOptions(scene(7))).toEqual({ backgroundStyle: 'cold', sphereColor: '#7c3aed', intensity: '1' });
    expect(defaultOptions(scene(1))).toEqual({ backgroundStyle: 'cold', textColor: '#ffffff' });
    expect(defaultOptions(scene(5))).toEqual({ backgroundColor: '#1a1a2e' });
    expect(defaultOptions(scene(2))).toEqual({});
  });
});

describe('validateOptions', () => {
  it('when the options fit the scene, there is no problem', () => {
    expect(validateOptions(scene(7), 'backgroundStyle:hot;sphereColor:#00FF00;intensity:0.5')).toBeNull();
    expect(validateOptions(scene(7), 'intensity:2')).toBeNull();
    expect(validateOptions(scene(2), '')).toBeNull();
  });

  it('when a key is unknown for the scene, it is named', () => {
    expect(validateOptions(scene(2), 'textColor:#ffffff')).toBe("Unknown option 'textColor' for this scene.");
  });

  it('when a value is off the scene config, it is refused', () => {
    expect(validateOptions(scene(1), 'backgroundStyle:lukewarm')).toBe("Invalid value for option 'backgroundStyle'.");
    expect(validateOptions(scene(1), 'textColor:red')).toBe("Invalid value for option 'textColor'.");
    expect(validateOptions(scene(7), 'intensity:0.4')).toMatch(/intensity/);
    expect(validateOptions(scene(7), 'intensity:2.1')).toMatch(/intensity/);
    expect(validateOptions(scene(7), 'intensity:1e0')).toMatch(/intensity/);
  });
});

describe('resolveOptions', () => {
  it('when a user chose some options, the rest take the defaults', () => {
    expect(serializeOptions(resolveOptions(scene(7), 'intensity:1.5'))).toBe('backgroundStyle:cold;sphereColor:#7c3aed;intensity:1.5');
  });
});
