/**
 * A still split into regions (Cycles' border render, shared/render-plan.ts): each region's
 * noisy passes rendered on their own, stitched and denoised once, give the same picture as
 * the still rendered whole; and a split still renders through the local pool to one
 * full-size image, with real Blender, DynamoDB Local and s3rver.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { LocalRenderPool } from '#adapters/local-render-pool';
import { listChunksOfJob, planOrResumeChunks } from '#core/jobs/chunks';
import { createJob, getJob, type JobRecord } from '#core/jobs/jobs';
import { farmJobState } from '#core/jobs/launch';
import { downloadOutput } from '#core/storage/storage';
import { startLocalStack, type LocalStack } from '#infra/local/stack';
import { runScene, type SceneArgs } from '#render/blender';
import { readRgb, type RgbImage } from '#render/image-quality';
import { finishSplitStill } from '#render/region-stitch';
import { REGION_FILE } from '#shared/render-contract';
import { regionRows } from '#shared/render-plan';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'still-regions-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Mean absolute difference of two 8-bit RGB images, in levels of 255. */
function meanAbsoluteDifference(a: RgbImage, b: RgbImage): number {
  expect([a.width, a.height]).toEqual([b.width, b.height]);
  let sum = 0;
  for (let i = 0; i < a.rgb.length; i += 1) sum += Math.abs(a.rgb[i] - b.rgb[i]);
  return sum / a.rgb.length;
}

// Adaptive sampling at the manifest's threshold, as finals render: a pixel's stopping looks at its neighbours, across a region's edge too.
const still = { sceneId: 1, mode: 'still', customText: 'Seams', options: 'backgroundStyle:hot;textColor:#ffffff', resolutionX: 240, resolutionY: 136, samples: 16 } as const satisfies Partial<SceneArgs>;

describe('a still split into regions', () => {
  test('when its regions are stitched and denoised once, the image has the full size and matches the still rendered whole', async () => {
    const whole = path.join(dir, 'whole');
    await runScene({ ...still, outputDir: whole });
    const count = 3;
    const files: string[] = [];
    for (let index = 0; index < count; index += 1) {
      const outputDir = path.join(dir, `region-${index}`);
      await runScene({ ...still, outputDir, region: regionRows(still.resolutionY, index, count) });
      files.push(path.join(outputDir, REGION_FILE));
    }
    const stitched = path.join(dir, 'stitched');
    await finishSplitStill(files, { ...still, outputDir: stitched }, dir);
    const [reference, image] = await Promise.all([readRgb(path.join(whole, 'still.png')), readRgb(path.join(stitched, 'still.png'))]);
    expect([image.width, image.height]).toEqual([still.resolutionX, still.resolutionY]);
    const difference = meanAbsoluteDifference(image, reference);
    console.log(`mean absolute difference against the still rendered whole: ${difference.toFixed(3)} of 255`);
    expect(difference).toBeLessThan(1);
  });
});

describe('a split still on the local pool', () => {
  let stack: LocalStack;
  beforeAll(async () => {
    stack = await startLocalStack().catch(() => startLocalStack());
  });
  afterAll(() => stack?.stop());

  test('when a still is planned in regions, each renders as its own chunk and the job completes with one full-size image', async () => {
    const now = new Date().toISOString();
    const job: JobRecord = {
      jobId: randomUUID(), userId: randomUUID(), userEmail: 'regions@example.com', sceneId: 1, blendFile: 'text', status: 'queued', created_at: now, lastActive: now, lastHeartbeat: now,
      mode: 'still', isStillRender: true, isTest: false, resolution_x: 160, resolution_y: 96, samples: 4, custom_text: 'Pool', options: '', total_frames: 1, uploaded_frames: [],
      totalLogLines: 100, loggedLines: 0, estimatedPrice: 1, estimatedRenderTimeMinutes: 1, totalBillableTimeMinutes: 1, estimatedCloudRunCost: 0, priceBreakdown: '{}',
      priceCalculationTimestamp: now, paymentMethod: 'credits', paymentStatus: 'confirmed', attempts: 1,
    };
    await createJob(job);
    // Latency-aimed, with regions far shorter than this tiny frame's estimate: the plan splits it as far as its rows allow.
    const chunks = await planOrResumeChunks(job, { targetChunkSeconds: 600, maxChunks: 100, concurrency: 4, stillRegionSeconds: 1e-6 });
    expect(chunks.map((chunk) => chunk.index)).toEqual([0, 1, 2, 3]);
    const pool = new LocalRenderPool({ jobs: farmJobState, workers: 2, jobsPerUser: 2, jobsDir: path.join(stack.dataDir, 'jobs') });
    try {
      pool.submit(job.jobId, job.userId, chunks.map((chunk) => chunk.index));
      await pool.idle();
    } finally {
      await pool.stop();
    }
    const done = await getJob(job.jobId);
    expect(done?.status, done?.crashReason).toBe('done');
    expect((await listChunksOfJob(job.jobId)).map((chunk) => chunk.status)).toEqual(['done', 'done', 'done', 'done']);
    const file = path.join(dir, 'pool-still.png');
    await downloadOutput(job.userId, job.jobId, done!.fileMetadata![0].name, file);
    const image = await readRgb(file);
    expect([image.width, image.height]).toEqual([160, 96]);
  });
});
