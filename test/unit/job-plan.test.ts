import { describe, expect, it } from 'vitest';
import { deploymentHas, planJob, planTasks, storedPlanOf, tasksOf, type RenderDeployment } from '#shared/job-plan';
import { fastPathSettings, planForFastPath, readyInSeconds, type SceneStepFigures } from '#shared/fast-path';
import { estimateFrameSeconds, planChunks, type PlanInput } from '#shared/render-plan';
import { SAFE_CHUNK_SECONDS } from '#shared/render-policy';
import { scenes } from '#shared/catalogue';

const fullHd = { sceneId: 1, resolutionX: 1920, resolutionY: 1080 };
const still: PlanInput = { ...fullHd, totalFrames: 1, isStill: true };
const testStill: PlanInput = { ...still, isTest: true };
const animation: PlanInput = { ...fullHd, totalFrames: 120, isStill: false };
const tenMinuteDrop: PlanInput = { sceneId: 7, resolutionX: 1920, resolutionY: 1080, totalFrames: 18_000, isStill: false };

const onAws: RenderDeployment = { renderMode: 'batch', hasRenderFunction: true, functionConcurrency: 200 };
const batchOnly: RenderDeployment = { renderMode: 'batch', hasRenderFunction: false, functionConcurrency: 200 };
const local: RenderDeployment = { renderMode: 'local', hasRenderFunction: false, functionConcurrency: 200 };

describe('planTasks', () => {
  it('when the deployment has the render function, a job that fits takes the fast path with the chunks planForFastPath cuts', () => {
    for (const input of [still, testStill, animation]) {
      const tasks = planTasks(input, onAws);
      expect(tasks.engine).toBe('function');
      expect(tasks.chunks).toEqual(planForFastPath(input, 200).chunks);
      expect(tasks.chunks).toEqual(planChunks(input, fastPathSettings(input, 200)));
    }
  });

  it('when the deployment has no render function, or is the local pool, the job renders on its farm in chunks of about 90 s', () => {
    expect(planTasks(animation, batchOnly)).toMatchObject({ engine: 'batch', chunks: planChunks(animation) });
    expect(planTasks(animation, local)).toMatchObject({ engine: 'local', chunks: planChunks(animation) });
    expect(planTasks(still, local).chunks).toEqual([{ index: 0, frameStart: 1, frameEnd: 1 }]);
  });

  it("when one frame would not end safely inside the function's limit, or an animation's finishing step would not fit its /tmp, the job goes to Batch in Batch's chunks", () => {
    const perSample = estimateFrameSeconds({ sceneId: 1, resolutionX: 3840, resolutionY: 2160, samples: 1, cores: 6 });
    const slow: PlanInput = { sceneId: 1, resolutionX: 3840, resolutionY: 2160, samples: Math.ceil(SAFE_CHUNK_SECONDS / perSample) + 1, totalFrames: 10, isStill: false };
    expect(planTasks(slow, onAws)).toMatchObject({ engine: 'batch', chunks: planChunks(slow) });
    expect(planTasks(tenMinuteDrop, { ...onAws, functionStorageMb: 512 })).toMatchObject({ engine: 'batch', chunks: planChunks(tenMinuteDrop) });
    expect(planTasks(tenMinuteDrop, onAws).engine).toBe('function');
  });

  it('when the job has a finishing step, it is a task after every chunk: an animation, a still in regions; a still in one chunk has none', () => {
    const video = planTasks(animation, onAws);
    expect(video.finishing).toEqual({ after: video.chunks.map((chunk) => chunk.index) });
    const regions = planTasks(still, onAws);
    expect(regions.chunks.length).toBeGreaterThan(1);
    expect(regions.finishing).toEqual({ after: regions.chunks.map((chunk) => chunk.index) });
    expect(planTasks(testStill, onAws).finishing).toBeUndefined();
    expect(planTasks(still, local).finishing).toBeUndefined();
    expect(planTasks({ ...animation, totalFrames: 1 }, local).finishing).toEqual({ after: [0] });
  });
});

describe('planJob', () => {
  it("when a job is planned, its promise is readyInSeconds at the deployment's concurrency, learnt from the scene's figures once they count enough", () => {
    const figures: SceneStepFigures = {
      sceneId: 1,
      chunks: 500,
      steps: { claim: { p50: 1, p90: 2 }, setup: { p50: 1, p90: 2 }, input: { p50: 0, p90: 0 }, build: { p50: 3, p90: 4 }, store: { p50: 1, p90: 2 } },
      renderAgainstModel: { p50: 2, p90: 3 },
    };
    for (const deployment of [onAws, local, { ...onAws, functionConcurrency: 10 }]) {
      expect(planJob(animation, deployment, null).promisedSeconds).toBe(readyInSeconds(animation, deployment.functionConcurrency, null));
      expect(planJob(animation, deployment, figures).promisedSeconds).toBe(readyInSeconds(animation, deployment.functionConcurrency, figures));
    }
    expect(planJob(animation, onAws, figures).promisedSeconds).toBeGreaterThan(planJob(animation, onAws, null).promisedSeconds);
  });
});

describe('the stored plan', () => {
  it('when a plan is stored, it is a few numbers whatever the job, and gives back the very tasks it was made of', () => {
    const inputs: PlanInput[] = scenes.flatMap((scene) => [
      { ...still, sceneId: scene.id },
      { ...testStill, sceneId: scene.id },
      { ...animation, sceneId: scene.id },
      { ...animation, sceneId: scene.id, totalFrames: 7, resolutionX: 640, resolutionY: 360 },
      { ...tenMinuteDrop, sceneId: scene.id },
    ]);
    for (const input of inputs) {
      for (const deployment of [onAws, { ...onAws, functionStorageMb: 512 }, { ...onAws, functionConcurrency: 7 }, batchOnly, local]) {
        const tasks = planTasks(input, deployment);
        const stored = storedPlanOf(tasks, input);
        expect(tasksOf(stored, input), JSON.stringify({ input, deployment })).toEqual(tasks);
        expect(JSON.stringify(stored).length).toBeLessThan(100);
      }
    }
  });

  it('when chunks are not an even split of the frames, the plan is refused rather than stored wrong', () => {
    const uneven = { engine: 'batch' as const, chunks: [{ index: 0, frameStart: 1, frameEnd: 2 }, { index: 1, frameStart: 3, frameEnd: 7 }, { index: 2, frameStart: 8, frameEnd: 10 }] };
    expect(() => storedPlanOf(uneven, { ...animation, totalFrames: 10 })).toThrow(/even split/);
  });

  it('when a deploy has taken the render function away, a plan on it names an engine the deployment has not', () => {
    expect(deploymentHas(onAws, 'function')).toBe(true);
    expect(deploymentHas(onAws, 'batch')).toBe(true);
    expect(deploymentHas(batchOnly, 'function')).toBe(false);
    expect(deploymentHas(local, 'local')).toBe(true);
    expect(deploymentHas(local, 'batch')).toBe(false);
  });
});
