import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { scriptArgsOf } from '#render/blender';
import { getScene, scenes } from '#shared/catalogue';
import { estimateFrameSecondsFor, frameSpreadOf, RENDER_MANIFEST, scenePolicy } from '#shared/render-manifest';
import { MAX_CUSTOM_TEXT_LENGTH } from '#shared/schemas';

const SCENES_DIR = fileURLToPath(new URL('../../render/scenes/', import.meta.url));
const pythonFiles = readdirSync(SCENES_DIR).filter((name) => name.endsWith('.py'));

describe('render manifest', () => {
  it('when the catalogue lists a scene, the manifest has its policy, and a measured Full-HD frame cost or the slowest measured one in its place', () => {
    const measured = scenes.map((scene) => scenePolicy(scene.id).frameCost).filter((cost) => cost !== null);
    expect(measured.length).toBeGreaterThan(0);
    const slowest = Math.max(...measured.map((cost) => cost.cpuSeconds / cost.cores));
    for (const scene of scenes) {
      const policy = scenePolicy(scene.id);
      expect(policy.styleIds).toEqual(scene.optionsConfig.backgroundStyles?.map((style) => style.id) ?? []);
      const fullHd = estimateFrameSecondsFor(scene.id, { resolutionX: 1920, resolutionY: 1080 });
      if (!policy.frameCost) {
        expect(fullHd, scene.slug).toBeCloseTo(slowest, 6);
        continue;
      }
      expect(policy.frameCost.cpuSeconds).toBeGreaterThan(0);
      expect(policy.frameCost.cores).toBeGreaterThan(0);
      expect(policy.frameCost.samples).toBeGreaterThan(0);
      expect(policy.frameCost.samples).toBeLessThanOrEqual(policy.final.maxSamples);
      expect(fullHd).toBeCloseTo(((policy.frameCost.cpuSeconds / policy.frameCost.cores) * policy.final.maxSamples) / policy.frameCost.samples, 6);
    }
    expect(Object.keys(RENDER_MANIFEST)).toHaveLength(scenes.length);
    expect(MAX_CUSTOM_TEXT_LENGTH).toBe(scenePolicy(1).textLimit);
  });

  it("when an animation's frame spread is measured, it names frames from the animation's first, ascending, with a ratio each; a scene not measured takes the widest measured spread", () => {
    const spreads = scenes.flatMap((scene) => (scenePolicy(scene.id).frameCost?.spread ? [scenePolicy(scene.id).frameCost!.spread!] : []));
    expect(spreads.length).toBeGreaterThan(0);
    for (const spread of spreads) {
      expect(spread.frames[0]).toBe(1);
      expect(spread.frames.slice(1).every((frame, i) => frame > spread.frames[i])).toBe(true);
      expect(spread.ratios).toHaveLength(spread.frames.length);
      expect(spread.ratios.every((ratio) => ratio > 0)).toBe(true);
      expect(spread.measuredOn).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    }
    const widest = Math.max(...spreads.map((spread) => Math.max(...spread.ratios)));
    for (const scene of scenes) {
      const found = frameSpreadOf(scene.id)!;
      expect(found.measured, scene.slug).toBe(scenePolicy(scene.id).frameCost?.spread !== undefined);
      if (!found.measured) expect(Math.max(...found.spread.ratios), scene.slug).toBe(widest);
    }
  });

  it('when a scene script is written, it holds no render policy number: no sampling, test size or text limit of its own', () => {
    expect(pythonFiles).not.toContain('common.py');
    const policyName = /^\s*[A-Z_]*(SAMPLE|THRESHOLD|TEST|MAX_SIDE|TEXT_L|TEXT_MAX|MAX_TEXT)[A-Z_]*\s*=/m;
    const policySetting = /\.(samples|adaptive_threshold)\s*=\s*[\d.]+|\[\s*:\s*\d{3,}\s*\]|raw\.get\("(samples|noiseThreshold|resolutionX|resolutionY)"\)\s*or\s*\d/;
    for (const name of pythonFiles) {
      const source = readFileSync(SCENES_DIR + name, 'utf8');
      expect(policyName.exec(source)?.[0], name).toBeUndefined();
      expect(policySetting.exec(source)?.[0], name).toBeUndefined();
    }
  });

  it("when the worker writes a script's arguments, they carry the manifest's sampling, test size cap and text limit", () => {
    const scene = getScene(1)!;
    const policy = scenePolicy(1);
    const long = 'x'.repeat(policy.textLimit + 50);
    const test = scriptArgsOf({ sceneId: 1, mode: 'still', resolutionX: 1920, resolutionY: 1080, isTest: true, customText: long, outputDir: '/tmp/x' }, scene);
    expect([test.resolutionX, test.resolutionY]).toEqual([policy.test.maxSide, 270]);
    expect(test.samples).toBe(policy.test.samples);
    expect(test.denoise).toBe(true);
    expect(test.customText).toHaveLength(policy.textLimit);
    const final = scriptArgsOf({ sceneId: 1, mode: 'still', resolutionX: 1920, resolutionY: 1080, outputDir: '/tmp/x' }, scene);
    expect([final.resolutionX, final.samples, final.noiseThreshold, final.denoise]).toEqual([1920, policy.final.maxSamples, policy.final.noiseThreshold, true]);
  });

  it("when a scene's finals let pixels stop early, the scene script is told the samples before they may (Text Animation: 8 at threshold 0.1); a test render, another scene, or a caller's own sampling get Cycles' automatic minimum", () => {
    const text = getScene(1)!;
    const args = { sceneId: 1, mode: 'still', resolutionX: 1920, resolutionY: 1080, outputDir: '/tmp/x' } as const;
    expect(scriptArgsOf(args, text)).toMatchObject({ samples: 32, noiseThreshold: 0.1, minSamples: 8 });
    expect(scriptArgsOf({ ...args, isTest: true }, text)).toMatchObject({ samples: scenePolicy(1).test.samples, minSamples: 0 });
    expect(scriptArgsOf({ ...args, samples: 16 }, text)).toMatchObject({ samples: 16, minSamples: 0 });
    expect(scriptArgsOf({ ...args, sceneId: 6 }, getScene(6)!)).toMatchObject({ samples: 32, noiseThreshold: 0.05, minSamples: 0 });
  });
});
