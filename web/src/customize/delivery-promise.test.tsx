import { act, screen } from '@testing-library/react';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { SceneDelivery } from '#shared/api-types';
import { CALIBRATION_MIN_CHUNKS, DEFAULT_FAST_PATH_CONCURRENCY, MEASURED_CHUNK_STEPS, formatReadyIn, readyInSeconds, type SceneStepFigures } from '#shared/fast-path';
import { getScene } from '#shared/catalogue';
import { renderWithApp } from '../test/render';
import CustomizePage from './CustomizePage';

/** The scenes the page asked for, and what the next read answers (a plain function: a read that fails is the page's to take, not the test's). */
const asked: number[] = [];
let nextRead: () => Promise<SceneDelivery>;

vi.mock('../lib/api', () => ({
  ApiError: class ApiError extends Error {
    constructor(
      readonly code: string,
      message: string,
    ) {
      super(message);
    }
  },
  api: {
    sceneDelivery: (sceneId: number) => {
      asked.push(sceneId);
      return nextRead();
    },
    livePreview: vi.fn(async () => ({ image: 'data:image/jpeg;base64,' })),
    warmPreviews: vi.fn(async () => ({ warm: true })),
  },
  uploadToStorage: vi.fn(),
}));

const scene = getScene(1)!;
/** What the page renders first: the scene's default still. */
const input = { sceneId: scene.id, resolutionX: scene.defaultSettings.resolutionX, resolutionY: scene.defaultSettings.resolutionY, isTest: false, totalFrames: 1, isStill: true };

/** Production's figures for the scene, enough chunks for the promise to follow them: every step 2 s, renders three times the model's. */
const calibrated: SceneDelivery = {
  concurrency: DEFAULT_FAST_PATH_CONCURRENCY,
  figures: {
    sceneId: scene.id,
    chunks: CALIBRATION_MIN_CHUNKS,
    steps: Object.fromEntries(MEASURED_CHUNK_STEPS.map((step) => [step, { p50: 2, p90: 4 }])) as SceneStepFigures['steps'],
    renderAgainstModel: { p50: 3, p90: 4 },
  },
};

const benchPromise = `ready in ${formatReadyIn(readyInSeconds(input))}`;
const calibratedPromise = `ready in ${formatReadyIn(readyInSeconds(input, calibrated.concurrency, calibrated.figures))}`;

function renderCustomize() {
  return renderWithApp(<CustomizePage />, { route: `/customize/${scene.id}`, path: '/customize/:sceneId' });
}

describe("the customise page's promise", () => {
  beforeEach(() => {
    asked.length = 0;
  });

  it("when the server's figures for the scene follow production, the page shows the promise computed from them, and the bench's until they arrive", async () => {
    // The figures differ enough from the bench's for the page to show another promise.
    expect(calibratedPromise).not.toBe(benchPromise);
    let answer!: (delivery: SceneDelivery) => void;
    const read = new Promise<SceneDelivery>((resolve) => (answer = resolve));
    nextRead = () => read;
    renderCustomize();
    // The read never holds the page up: while it is on its way the bench's promise shows.
    expect(screen.getByText(benchPromise)).toBeInTheDocument();
    expect(asked).toEqual([scene.id]);
    answer(calibrated);
    expect(await screen.findByText(calibratedPromise)).toBeInTheDocument();
    expect(screen.queryByText(benchPromise)).not.toBeInTheDocument();
  });

  it("when the figures cannot be read, the page keeps the bench's promise", async () => {
    let fail!: (error: Error) => void;
    const read = new Promise<SceneDelivery>((_, reject) => (fail = reject));
    nextRead = () => read;
    renderCustomize();
    expect(asked).toEqual([scene.id]);
    fail(new Error('Network Error'));
    await expect(read).rejects.toThrow('Network Error');
    // The page took the failure (its render after the query's error) and still shows the bench's promise.
    await act(async () => {});
    expect(screen.getByText(benchPromise)).toBeInTheDocument();
  });

  it("when the scene has no figures yet, the page shows the bench's promise planned with the server's concurrency", async () => {
    // A deployment whose render function runs fewer environments at once splits a still into fewer regions, and promises it so.
    const delivery: SceneDelivery = { concurrency: 2, figures: null };
    const planned = `ready in ${formatReadyIn(readyInSeconds(input, delivery.concurrency, delivery.figures))}`;
    expect(planned).not.toBe(benchPromise);
    nextRead = async () => delivery;
    renderCustomize();
    expect(await screen.findByText(planned)).toBeInTheDocument();
  });
});
