import { describe, expect, it } from 'vitest';
import { estimateFrameSeconds, estimateSecondsLeft, formatTimeLeft, framesOf, hasFinishingStep, planChunks, plannedSeconds, regionRows, renderTimeLimitSeconds, stillRegionCount, stillRegionTime, type FarmProgress } from '#shared/render-plan';
import { MAX_STILL_REGIONS, RENDER_LIMIT_FLOOR_SECONDS, SAFE_CHUNK_SECONDS } from '#shared/render-policy';
import { REGION_MARGIN_ROWS, scenePolicy } from '#shared/render-manifest';
import {
  assumptionsOf,
  DELIVERY_ASSUMPTIONS,
  DELIVERY_BANDS,
  deliveryBands,
  finishingFitsFunction,
  finishingStorageMb,
  MEASURED_CHUNK_MODEL,
  MEASURED_DELIVERY_MODEL,
  planningChunkTime,
  planForFastPath,
  readyInSeconds,
  RENDER_FUNCTION,
  SEGMENT_DOWNLOADS_AT_ONCE,
  stragglerRow,
} from '#shared/fast-path';
import { scenes } from '#shared/catalogue';

const fullHd = { sceneId: 1, resolutionX: 1920, resolutionY: 1080 };

describe('planChunks', () => {
  it('when the render is a still, it is one chunk of frame 1', () => {
    expect(planChunks({ ...fullHd, totalFrames: 1, isStill: true })).toEqual([{ index: 0, frameStart: 1, frameEnd: 1 }]);
  });

  it('when frames are slow, each chunk is small but the job never exceeds the chunk maximum', () => {
    const chunks = planChunks({ ...fullHd, totalFrames: 18_000, isStill: false }, { targetChunkSeconds: 90, maxChunks: 100 });
    expect(chunks).toHaveLength(100);
    expect(chunks.flatMap(framesOf)).toEqual(Array.from({ length: 18_000 }, (_, i) => i + 1));
  });

  it('when frames are cheap, a chunk holds as many frames as fit in the target time', () => {
    const chunks = planChunks({ sceneId: 1, resolutionX: 640, resolutionY: 360, samples: 16, totalFrames: 24, isStill: false }, { targetChunkSeconds: 10, maxChunks: 100 });
    const size = chunks[0].frameEnd - chunks[0].frameStart + 1;
    expect(size).toBeGreaterThan(1);
    expect(chunks.slice(0, -1).every((c) => c.frameEnd - c.frameStart + 1 === size)).toBe(true);
    expect(chunks.flatMap(framesOf)).toEqual(Array.from({ length: 24 }, (_, i) => i + 1));
  });

  it("when a Full-HD final is planned, a chunk holds the frames the manifest's measured cost fits in the target time", () => {
    const cost = scenePolicy(1).frameCost!;
    const perFrame = ((cost.cpuSeconds / cost.cores) * scenePolicy(1).final.maxSamples) / cost.samples;
    expect(estimateFrameSeconds(fullHd)).toBeCloseTo(perFrame, 6);
    const chunks = planChunks({ ...fullHd, totalFrames: 120, isStill: false }, { targetChunkSeconds: 4 * perFrame, maxChunks: 100 });
    expect(chunks[0].frameEnd - chunks[0].frameStart + 1).toBe(4);
  });

  it('when the fan-out has more room than the job has frames, every chunk is one frame; beyond it, chunks fill one wave up to the time a chunk may take', () => {
    const perFrame = estimateFrameSeconds({ ...fullHd, cores: 6 });
    const fanOut = { targetChunkSeconds: 1000 * perFrame, maxChunks: 100_000, concurrency: 200, cores: 6 };
    const small = planChunks({ ...fullHd, totalFrames: 120, isStill: false }, fanOut);
    expect(small).toHaveLength(120);
    expect(small.every((c) => c.frameStart === c.frameEnd)).toBe(true);
    const long = planChunks({ ...fullHd, totalFrames: 18_000, isStill: false }, fanOut);
    expect(long).toHaveLength(200);
    expect(long.flatMap(framesOf)).toEqual(Array.from({ length: 18_000 }, (_, i) => i + 1));
    // Chunks of 90 frames would outlast the limit: 30 frames each, in three waves.
    const capped = planChunks({ ...fullHd, totalFrames: 18_000, isStill: false }, { ...fanOut, targetChunkSeconds: 30.5 * perFrame });
    expect(capped).toHaveLength(600);
  });

  it('when the frame count is not a positive integer, it refuses to plan', () => {
    expect(() => planChunks({ ...fullHd, totalFrames: 0, isStill: false })).toThrow(RangeError);
    expect(() => planChunks({ ...fullHd, totalFrames: 2.5, isStill: false })).toThrow(RangeError);
  });
});

describe('estimateSecondsLeft', () => {
  const progress: FarmProgress = { totalFrames: 120, framesDone: 20, chunksTotal: 60, chunksDone: 10, chunksRunning: 4, chunkSecondsDone: 400, chunkFramesDone: 20 };

  it('when chunks have finished, it uses their measured time per frame spread over the running chunks', () => {
    expect(estimateSecondsLeft(progress, { frameSeconds: 5, now: 0 })).toBe((100 * 20) / 4);
  });

  it("when no chunk has finished, it takes the manifest's frame cost over the plan minus the time spent", () => {
    const none = { ...progress, framesDone: 0, chunksDone: 0, chunkSecondsDone: 0, chunkFramesDone: 0 };
    // 60 chunks of 2 frames, 4 at once: 15 waves of 2 frames of 20 s.
    expect(plannedSeconds(120, 60, 4, 20)).toBe(600);
    expect(estimateSecondsLeft(none, { frameSeconds: 20, startedAt: 0, now: 120_000 })).toBe(480);
    expect(estimateSecondsLeft(none, { now: 0 })).toBeNull();
  });

  it('when it is formatted, it reads "about N min left"', () => {
    expect(formatTimeLeft(500)).toBe('about 8 min left');
    expect(formatTimeLeft(30)).toBe('less than a minute left');
    expect(formatTimeLeft(null)).toBeNull();
  });
});

describe('renderTimeLimitSeconds', () => {
  it('when a chunk is small, the floor applies; when it is large, a multiple of its estimate', () => {
    expect(renderTimeLimitSeconds(1, { sceneId: 1, resolutionX: 128, resolutionY: 128, samples: 12 })).toBe(RENDER_LIMIT_FLOOR_SECONDS);
    expect(renderTimeLimitSeconds(100, fullHd)).toBe(Math.ceil(4 * 100 * estimateFrameSeconds(fullHd)));
  });
});

describe('still regions', () => {
  const fullHdStill = { ...fullHd, totalFrames: 1, isStill: true };
  const latency = { targetChunkSeconds: 600, maxChunks: 1000, concurrency: 200, cores: 6 };

  /** The count whose still is stored soonest on the model, and the fewest within 5 % of it. */
  const byModel = (height: number, most: number, chunk: { fixedSeconds: number; perFrameSeconds: number }) => {
    const stored = Array.from({ length: most }, (_, i) => stillRegionTime(i + 1, height, chunk).stored);
    const fastest = Math.min(...stored);
    return { fastest: stored.indexOf(fastest) + 1, chosen: stored.findIndex((seconds) => seconds <= fastest * 1.05) + 1, stored };
  };

  it("when a final still is split, its region count is the model's: the fewest regions stored within 5 % of the fastest count, not a constant", () => {
    const chunk = { fixedSeconds: 3, perFrameSeconds: 30 };
    const { chosen, fastest, stored } = byModel(1080, MAX_STILL_REGIONS, chunk);
    const count = stillRegionCount(fullHdStill, { ...latency, splitStills: true, chunkTime: chunk });
    expect(count).toBe(chosen);
    expect(count).toBeGreaterThan(1);
    expect(count).toBeLessThanOrEqual(fastest);
    expect(stored[count - 1]).toBeLessThan(stored[0]);
    expect(planChunks(fullHdStill, { ...latency, splitStills: true, chunkTime: chunk })).toEqual(Array.from({ length: count }, (_, index) => ({ index, frameStart: 1, frameEnd: 1 })));
    // The count follows the frame's time and a chunk's fixed part: a slower frame takes more regions, a dearer start fewer.
    const slower = stillRegionCount(fullHdStill, { ...latency, splitStills: true, chunkTime: { ...chunk, perFrameSeconds: 120 } });
    const dearerStart = stillRegionCount(fullHdStill, { ...latency, splitStills: true, chunkTime: { ...chunk, fixedSeconds: 3, perFrameSeconds: 8 } });
    expect(slower).toBeGreaterThan(count);
    expect(dearerStart).toBeLessThan(count);
  });

  it("when a region is modelled, it renders its margins, and the still's function seconds grow with every region", () => {
    const chunk = { fixedSeconds: 2, perFrameSeconds: 54 };
    const one = stillRegionTime(1, 1080, chunk);
    expect(one.slowestRegion).toBeCloseTo(2 + 54);
    expect(one.stored).toBe(one.slowestRegion);
    // A middle region of four: its 270 rows and a margin above and below.
    const four = stillRegionTime(4, 1080, chunk);
    expect(four.slowestRegion).toBeCloseTo(2 + ((270 + 2 * REGION_MARGIN_ROWS) * 54) / 1080);
    expect(four.stored).toBeGreaterThan(four.slowestRegion);
    const seconds = [1, 2, 4, 8, 16].map((count) => stillRegionTime(count, 1080, chunk).functionSeconds);
    seconds.slice(1).forEach((value, i) => expect(value).toBeGreaterThan(seconds[i]));
  });

  it('when the still is cheap, a test render, or the plan does not aim at latency, it stays one chunk', () => {
    expect(stillRegionCount(fullHdStill, { ...latency, splitStills: true, chunkTime: { fixedSeconds: 3, perFrameSeconds: 0.5 } })).toBe(1);
    expect(stillRegionCount({ ...fullHdStill, isTest: true }, { ...latency, splitStills: true })).toBe(1);
    expect(stillRegionCount(fullHdStill, { targetChunkSeconds: 90, maxChunks: 100, splitStills: true })).toBe(1);
    expect(stillRegionCount(fullHdStill, latency)).toBe(1);
  });

  it('when regions would be many, they are capped by the maximum and the concurrency, and a frame little taller than its margins stays whole', () => {
    const slow = { fixedSeconds: 0, perFrameSeconds: 1e6 };
    const many = stillRegionCount(fullHdStill, { ...latency, splitStills: true, chunkTime: slow });
    expect(many).toBe(byModel(1080, MAX_STILL_REGIONS, slow).chosen);
    expect(many).toBeGreaterThan(MAX_STILL_REGIONS / 2);
    expect(stillRegionCount(fullHdStill, { ...latency, concurrency: 3, splitStills: true, chunkTime: slow })).toBe(3);
    // Two regions of 20 rows would each render all 40 with their margins: no sooner, at twice the cost.
    expect(stillRegionCount({ ...fullHdStill, resolutionY: 40 }, { ...latency, splitStills: true, chunkTime: slow })).toBe(1);
  });

  it('when a frame is cut into regions, the strips cover every row once, in order, full width', () => {
    for (const [height, count] of [[1080, 4], [1080, 7], [136, 3], [17, 1]]) {
      const rows = Array.from({ length: count }, (_, index) => regionRows(height, index, count));
      expect(rows[0].top).toBe(0);
      expect(rows.at(-1)!.bottom).toBe(height);
      rows.slice(1).forEach((row, i) => expect(row.top).toBe(rows[i].bottom));
      expect(rows.every((row) => row.bottom > row.top)).toBe(true);
    }
    expect(() => regionRows(1080, 4, 4)).toThrow(RangeError);
  });

  it('when a still is split, it needs the finishing step an animation has; a whole still does not', () => {
    expect(hasFinishingStep({ isStillRender: true, chunksTotal: 1 })).toBe(false);
    expect(hasFinishingStep({ isStillRender: true, chunksTotal: 4 })).toBe(true);
    expect(hasFinishingStep({ isStillRender: false, chunksTotal: 1 })).toBe(true);
  });

  it("when a Full-HD final still takes the fast path, its region count is the model's and its ready time counts one region and the finishing step", () => {
    const plan = planForFastPath(fullHdStill);
    expect(plan.engine).toBe('function');
    expect(plan.chunks.length).toBe(byModel(1080, MAX_STILL_REGIONS, planningChunkTime(fullHdStill)).chosen);
    expect(plan.chunks.length).toBeGreaterThan(1);
    // The same still in one chunk (a concurrency of 1 leaves it whole), in the same model: the regions deliver it sooner.
    const whole = deliveryBands(fullHdStill, 1).typical;
    expect(whole.chunks).toBe(1);
    expect(whole.steps.finishing).toBe(0);
    const split = deliveryBands(fullHdStill).typical;
    expect(split.steps.finishing).toBeGreaterThan(0);
    expect(split.steps.render).toBeLessThan(whole.steps.render / 2);
    expect(readyInSeconds(fullHdStill)).toBeLessThan(whole.totalSeconds);
  });
});

describe('planForFastPath', () => {
  it('when a test render or a Full-HD animation is planned, it takes the function, one frame per chunk', () => {
    const test = planForFastPath({ ...fullHd, isTest: true, totalFrames: 1, isStill: true });
    expect(test.engine).toBe('function');
    const animation = planForFastPath({ ...fullHd, totalFrames: 120, isStill: false });
    expect(animation).toMatchObject({ engine: 'function' });
    expect(animation.chunks).toHaveLength(120);
  });

  it('when one frame alone would not end safely inside the function time limit, the job goes to the Batch path', () => {
    // Samples far beyond the manifest's: one 4K frame at this many takes longer than the safe chunk time on 6 vCPU.
    const perSample = estimateFrameSeconds({ sceneId: 1, resolutionX: 3840, resolutionY: 2160, samples: 1, cores: RENDER_FUNCTION.vcpus });
    const samples = Math.ceil(SAFE_CHUNK_SECONDS / perSample) + 1;
    const plan = planForFastPath({ sceneId: 1, resolutionX: 3840, resolutionY: 2160, samples, totalFrames: 10, isStill: false });
    expect(plan.engine).toBe('batch');
    expect(plan.chunks.flatMap(framesOf)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
  });

  it('when a 10-minute track is planned for the function, every chunk (its start, its frames rendered, stored and encoded) is estimated within the planned 600 s, one frame more would not be, and the rest goes to more waves', () => {
    const tenMinutes = { resolutionX: 1920, resolutionY: 1080, totalFrames: 18_000, isStill: false };
    for (const scene of scenes) {
      const input = { ...tenMinutes, sceneId: scene.id };
      const plan = planForFastPath(input, 200);
      expect(plan.engine, scene.title).toBe('function');
      const { fixedSeconds, perFrameSeconds } = planningChunkTime(input);
      const longest = Math.max(...plan.chunks.map((chunk) => framesOf(chunk).length));
      expect(plan.chunkSeconds, scene.title).toBeCloseTo(fixedSeconds + longest * perFrameSeconds, 6);
      expect(plan.chunkSeconds, scene.title).toBeLessThanOrEqual(SAFE_CHUNK_SECONDS);
      expect(fixedSeconds + (longest + 1) * perFrameSeconds, scene.title).toBeGreaterThan(SAFE_CHUNK_SECONDS);
      expect(plan.chunks.length, scene.title).toBeGreaterThan(200);
      expect(plan.chunks.flatMap(framesOf)).toEqual(Array.from({ length: 18_000 }, (_, i) => i + 1));
    }
  });

  it('when threads scale worse or a frame costs more than the stored figures say, the same track gets smaller chunks, still within the planned limit', () => {
    const drop = { sceneId: 7, resolutionX: 1920, resolutionY: 1080, totalFrames: 18_000, isStill: false };
    const stored = planForFastPath(drop, 200);
    const slower = { ...MEASURED_CHUNK_MODEL, efficiencyPerDoubling: 0.85, serialSeconds: 4 };
    const planned = planForFastPath(drop, 200, slower, estimateFrameSeconds({ ...drop, cores: 1 }) * 1.3);
    expect(planned.chunks.length).toBeGreaterThan(stored.chunks.length);
    expect(planned.chunkSeconds).toBeLessThanOrEqual(SAFE_CHUNK_SECONDS);
  });
});

describe('finishingFitsFunction', () => {
  it("when the render function's /tmp is SnapStart's 512 MB, a 120-frame Full-HD video's finishing step fits and the 10-minute track's does not, which goes to Batch", () => {
    const animation = { ...fullHd, totalFrames: 120, isStill: false };
    const drop = { sceneId: 7, resolutionX: 1920, resolutionY: 1080, totalFrames: 18_000, isStill: false };
    expect(finishingStorageMb(animation)).toBeCloseTo(2 * 120 * MEASURED_CHUNK_MODEL.segmentMbPerFrame, 6);
    expect(finishingFitsFunction(animation, 512)).toBe(true);
    expect(finishingFitsFunction(drop, 512)).toBe(false);
    expect(finishingFitsFunction(drop, 4096)).toBe(true);
    // A still's regions are a few MB; a function not told its storage keeps today's routing.
    expect(finishingFitsFunction({ ...fullHd, totalFrames: 1, isStill: true }, 512)).toBe(true);
    expect(finishingFitsFunction(drop, undefined)).toBe(true);
  });

  it('when a frame has four times the pixels, its share of the finishing step is four times as large', () => {
    const animation = { ...fullHd, totalFrames: 600, isStill: false };
    expect(finishingStorageMb({ ...animation, resolutionX: 3840, resolutionY: 2160 })).toBeCloseTo(4 * finishingStorageMb(animation), 6);
  });
});

describe('deliveryBands', () => {
  const jobs = [
    { ...fullHd, totalFrames: 1, isStill: true },
    { ...fullHd, totalFrames: 120, isStill: false },
    { ...fullHd, totalFrames: 1, isStill: true, isTest: true },
    ...scenes.map((scene) => ({ sceneId: scene.id, resolutionX: 1920, resolutionY: 1080, totalFrames: 120, isStill: false })),
  ];

  it('when a job is planned, the promise shown before paying is the typical band of the same model, rounded up', () => {
    for (const job of jobs) {
      expect(readyInSeconds(job), JSON.stringify(job)).toBe(Math.ceil(deliveryBands(job).typical.totalSeconds));
      expect(readyInSeconds(job, 50), JSON.stringify(job)).toBe(Math.ceil(deliveryBands(job, 50).typical.totalSeconds));
    }
  });

  it('when the bands are computed, best <= typical <= pessimistic, and each total is the sum of its named steps', () => {
    for (const job of jobs) {
      const bands = deliveryBands(job);
      expect(bands.best.totalSeconds, JSON.stringify(job)).toBeLessThanOrEqual(bands.typical.totalSeconds);
      expect(bands.typical.totalSeconds, JSON.stringify(job)).toBeLessThanOrEqual(bands.pessimistic.totalSeconds);
      expect(bands.best.billedSeconds).toBeLessThanOrEqual(bands.typical.billedSeconds);
      expect(bands.typical.billedSeconds).toBeLessThanOrEqual(bands.pessimistic.billedSeconds);
      for (const band of DELIVERY_BANDS) {
        const { steps, finishing, totalSeconds } = bands[band];
        expect(totalSeconds).toBeCloseTo(Object.values(steps).reduce((a, b) => a + b, 0), 9);
        expect(steps.finishing).toBeCloseTo(Object.values(finishing).reduce((a, b) => a + b, 0), 9);
        expect(steps.coldStart).toBe(DELIVERY_ASSUMPTIONS.coldStartSeconds[band]);
      }
    }
  });

  it('when every figure of the table is read, each band has a number and each figure says where it comes from', () => {
    for (const [name, row] of Object.entries(DELIVERY_ASSUMPTIONS)) {
      expect(row.source.length, name).toBeGreaterThan(20);
      for (const band of DELIVERY_BANDS) expect(Number.isFinite(row[band]), `${name} ${band}`).toBe(true);
    }
    expect(assumptionsOf('typical', 1).vcpus).toBeCloseTo(5.79, 2);
    expect(assumptionsOf('best', 1).vcpus).toBe(RENDER_FUNCTION.vcpus);
  });

  it("when an animation's frames were measured, its slowest chunk renders the measured straggler: at least the slowest measured frame beyond the still, more in the typical and pessimistic bands; a still has none", () => {
    const spread = scenePolicy(1).frameCost!.spread!;
    const row = stragglerRow(1);
    expect(row.best).toBeCloseTo(Math.max(0, Math.max(...spread.ratios) - 1), 9);
    expect(row.best).toBeLessThanOrEqual(row.typical);
    expect(row.typical).toBeLessThanOrEqual(row.pessimistic);
    expect(row.source).toMatch(new RegExp(`^Measured by bench:frame-costs on ${spread.measuredOn}`));
    const animation = deliveryBands({ ...fullHd, totalFrames: 120, isStill: false });
    const still = deliveryBands({ ...fullHd, totalFrames: 1, isStill: true });
    for (const band of DELIVERY_BANDS) {
      expect(animation[band].steps.straggler).toBeCloseTo(animation[band].steps.render * row[band], 9);
      expect(still[band].steps.straggler).toBe(0);
    }
    // The planner sizes an animation's chunks by the pessimistic straggler on every frame's render.
    const input = { ...fullHd, totalFrames: 18_000, isStill: false };
    const planned = planningChunkTime(input);
    expect(planned.perFrameSeconds).toBeCloseTo(planned.perFrame.render * (1 + row.pessimistic) + planned.perFrame.encode + planned.perFrame.store, 9);
  });

  it("when an animation's finishing step is modelled, it downloads the segments the chunks' records name, with no request asking which exist, and asks the task server two questions", () => {
    const animation = deliveryBands({ ...fullHd, totalFrames: 120, isStill: false });
    for (const band of DELIVERY_BANDS) {
      const a = assumptionsOf(band, 1);
      const segment = a.s3RequestSeconds + MEASURED_DELIVERY_MODEL.segmentMbPerFrame / a.s3MegabytesPerSecond;
      expect(animation[band].finishing.download).toBeCloseTo(Math.ceil(120 / SEGMENT_DOWNLOADS_AT_ONCE) * segment, 9);
      expect(animation[band].finishing.taskServer).toBeCloseTo(a.recordSeconds / 2, 9);
    }
  });

  it("when a chunk starts, its credentials are asked for beside its claim: a scene without input waits for none, one with an input only for what the claim and Blender's version leave", () => {
    const text = deliveryBands({ ...fullHd, totalFrames: 120, isStill: false });
    const image = deliveryBands({ ...fullHd, sceneId: 2, totalFrames: 120, isStill: false });
    for (const band of DELIVERY_BANDS) {
      const a = assumptionsOf(band, 2);
      expect(text[band].steps.credentials).toBe(0);
      expect(image[band].steps.credentials).toBeCloseTo(Math.max(0, a.credentialsSeconds - a.recordSeconds / 4 - a.versionProbeSeconds), 9);
    }
  });

  it("when other jobs' chunks hold the reserved concurrency, this job's last chunk waits for a slot and the retry's back-off; within it, nothing waits", () => {
    const animation = { ...fullHd, totalFrames: 120, isStill: false };
    const alone = deliveryBands(animation, 200);
    const fifthOfFive = deliveryBands(animation, 200, undefined, undefined, { chunksAhead: 4 * 120 });
    for (const band of DELIVERY_BANDS) {
      expect(alone[band].waves).toBe(1);
      expect(alone[band].steps.queue).toBe(0);
      expect(fifthOfFive[band].waves).toBe(3);
      // Two waves ahead, each at least a chunk long; the best band retries at once.
      expect(fifthOfFive[band].steps.queue).toBeGreaterThanOrEqual(2 * fifthOfFive[band].chunkSeconds);
      expect(fifthOfFive[band].totalSeconds).toBeCloseTo(alone[band].totalSeconds + fifthOfFive[band].steps.queue, 9);
    }
    expect(fifthOfFive.best.steps.queue).toBeCloseTo(2 * fifthOfFive.best.chunkSeconds, 9);
    expect(fifthOfFive.typical.steps.queue).toBeGreaterThan(2 * fifthOfFive.typical.chunkSeconds);
  });
});
