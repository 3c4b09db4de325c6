import { describe, expect, it } from 'vitest';
import { CALIBRATION_MIN_CHUNKS, deliveryBands, MEASURED_CHUNK_STEPS, modelledChunkRenderSeconds, planForFastPath, promisedDelivery, readyInSeconds, type SceneStepFigures } from '#shared/fast-path';
import { framesOf } from '#shared/render-plan';

const still = { sceneId: 1, resolutionX: 1920, resolutionY: 1080, totalFrames: 1, isStill: true };
const animation = { sceneId: 1, resolutionX: 1920, resolutionY: 1080, totalFrames: 120, isStill: false };

/** Production's figures for scene 1: every step 1.5 s, renders twice the model's. */
const measured = (chunks: number): SceneStepFigures => ({
  sceneId: 1,
  chunks,
  steps: Object.fromEntries(MEASURED_CHUNK_STEPS.map((step) => [step, { p50: 1.5, p90: 3 }])) as SceneStepFigures['steps'],
  renderAgainstModel: { p50: 2, p90: 2.5 },
});

describe('promisedDelivery', () => {
  it(`when a scene has fewer than ${CALIBRATION_MIN_CHUNKS} measured chunks, the promise keeps the bench's figures`, () => {
    const bench = deliveryBands(still).typical;
    const promise = promisedDelivery(bench, measured(CALIBRATION_MIN_CHUNKS - 1), 0);
    expect(promise.basis).toBe('bench');
    expect(promise.totalSeconds).toBe(bench.totalSeconds);
    expect(readyInSeconds(still, undefined, measured(CALIBRATION_MIN_CHUNKS - 1))).toBe(readyInSeconds(still));
    expect(readyInSeconds(still, undefined, null)).toBe(readyInSeconds(still));
  });

  it(`when a scene has ${CALIBRATION_MIN_CHUNKS} measured chunks, each measured step's median replaces the step it stands for and the render follows the measured speed`, () => {
    const bench = deliveryBands(still).typical;
    const promise = promisedDelivery(bench, measured(CALIBRATION_MIN_CHUNKS), 0);
    expect(promise.basis).toBe('production');
    expect(promise.steps).toMatchObject({ credentials: 1.5, versionProbes: 1.5, input: 1.5, blenderStart: 1.5, store: 1.5 });
    expect(promise.steps.render).toBeCloseTo(bench.steps.render * 2);
    expect(promise.steps.taskServer).toBeCloseTo((bench.steps.taskServer * 3) / 4);
    // What no chunk measures stays the model's.
    for (const step of ['dispatch', 'coldStart', 'pageIn', 'queue', 'scaling', 'encode', 'finishing'] as const) expect(promise.steps[step], step).toBe(bench.steps[step]);
    expect(promise.totalSeconds).toBeCloseTo(Object.values(promise.steps).reduce((a, b) => a + b, 0));
    expect(readyInSeconds(still, undefined, measured(CALIBRATION_MIN_CHUNKS))).toBe(Math.ceil(promise.totalSeconds));
    expect(readyInSeconds(still, undefined, measured(CALIBRATION_MIN_CHUNKS))).not.toBe(readyInSeconds(still));
  });

  it("when an animation's promise is calibrated, its straggler is the scene's share of the measured render", () => {
    const bench = deliveryBands(animation).typical;
    const share = bench.steps.straggler / bench.steps.render;
    const promise = promisedDelivery(bench, measured(CALIBRATION_MIN_CHUNKS), share);
    expect(promise.steps.straggler).toBeCloseTo(bench.steps.straggler * 2);
    expect(readyInSeconds(animation, undefined, measured(CALIBRATION_MIN_CHUNKS))).toBe(Math.ceil(promise.totalSeconds));
  });
});

describe('modelledChunkRenderSeconds', () => {
  it("when a still's region is measured, it is set against the region's modelled render, whatever its frames", () => {
    expect(modelledChunkRenderSeconds(still, 1)).toBe(deliveryBands(still).typical.steps.render);
  });

  it("when an animation's chunk is measured, it is set against the model's render of that many frames", () => {
    const longest = Math.max(...planForFastPath(animation).chunks.map((chunk) => framesOf(chunk).length));
    const perFrame = deliveryBands(animation).typical.steps.render / longest;
    expect(modelledChunkRenderSeconds(animation, 3)).toBeCloseTo(3 * perFrame);
  });
});
