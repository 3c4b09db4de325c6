/**
 * A still split into regions (Cycles' border render, shared/render-plan.ts): each region renders its rows with the
 * manifest's margin, denoises them and saves its final rows; the rows joined give the picture a whole-frame denoise of
 * the same render gives, with no seam where two regions meet, whether a fresh Blender or a warm scene's children render
 * them; and a split still renders through the local pool to one
 * full-size image, with real Blender, DynamoDB Local and s3rver.
 */
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
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
import { runFfmpeg } from '#render/encode';
import { psnr, readRgb, type RgbImage } from '#render/image-quality';
import { joinRegions } from '#render/region-stitch';
import { framePreviewFile, REGION_FILE } from '#shared/render-contract';
import { REGION_MARGIN_ROWS } from '#shared/render-manifest';
import { regionRows } from '#shared/render-plan';
import { getScene } from '#shared/catalogue';
import { readOutput, sceneToolIdentity, WarmScene } from '#render/warm-scene';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'still-regions-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Mean absolute difference between row y and the row above it, in levels of 255. */
function rowStep(image: RgbImage, y: number): number {
  const stride = image.width * 3;
  let sum = 0;
  for (let i = 0; i < stride; i += 1) sum += Math.abs(image.rgb[y * stride + i] - image.rgb[(y - 1) * stride + i]);
  return sum / stride;
}

// Adaptive sampling at the manifest's threshold, as finals render: a pixel's stopping looks at its neighbours, across a
// region's edge too. Four regions of 48 rows: each margin is a large share of its region, as at Full HD it is not, but the
// denoiser's reach is in pixels, so what holds here holds for larger frames.
const still = { sceneId: 1, mode: 'still', customText: 'Seams', options: 'backgroundStyle:hot;textColor:#ffffff', resolutionX: 320, resolutionY: 192, samples: 16 } as const satisfies Partial<SceneArgs>;

/** The whole frame denoised, rendered once for the tests that compare regions with it. */
let whole: Promise<RgbImage> | undefined;
const wholeFrame = () =>
  (whole ??= (async () => {
    const outputDir = path.join(dir, 'whole');
    await runScene({ ...still, outputDir });
    return readRgb(path.join(outputDir, 'still.png'));
  })());

/**
 * The still's regions, each rendered into its own folder by `render`, joined: against the whole frame denoised, its
 * quality, and the step across each boundary beyond the whole frame's against the image's own noise.
 */
async function joinedAgainstWhole(name: string, render: (outputDir: string, region: NonNullable<SceneArgs['region']>) => Promise<unknown>) {
  const count = 4;
  const files: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const outputDir = path.join(dir, `${name}-${index}`);
    await render(outputDir, { ...regionRows(still.resolutionY, index, count), margin: REGION_MARGIN_ROWS });
    files.push(path.join(outputDir, REGION_FILE));
  }
  const joined = path.join(dir, `${name}-joined`);
  await joinRegions(files, still.resolutionX, still.resolutionY, joined);
  const [reference, image, preview] = await Promise.all([wholeFrame(), readRgb(path.join(joined, 'still.png')), readRgb(path.join(joined, framePreviewFile(1)))]);
  expect([image.width, image.height]).toEqual([still.resolutionX, still.resolutionY]);
  expect(preview.width).toBeGreaterThan(0);
  const quality = psnr(image, reference);
  // A seam is a step between the two rows across a boundary that the whole frame's denoise does not have there; the
  // image's own noise is the step between neighbouring rows elsewhere (their median: most rows are not an edge).
  const boundaries = Array.from({ length: count - 1 }, (_, index) => regionRows(still.resolutionY, index + 1, count).top);
  const elsewhere = Array.from({ length: image.height - 1 }, (_, i) => i + 1).filter((y) => !boundaries.includes(y)).map((y) => rowStep(image, y)).sort((a, b) => a - b);
  const ownNoise = elsewhere[Math.floor(elsewhere.length / 2)];
  const seams = boundaries.map((y) => rowStep(image, y) - rowStep(reference, y));
  console.log(`${name}: joined against the whole frame denoised: ${quality.toFixed(2)} dB; step across each boundary beyond the whole frame's: ${seams.map((step) => step.toFixed(2)).join(' / ')} of 255, the image's own row-to-row noise ${ownNoise.toFixed(2)}`);
  return { quality, seams, ownNoise };
}

describe('a still split into regions', () => {
  test('when each region denoises its own rows with the margin, the joined still matches a whole-frame denoise of the same render and no region boundary shows', async () => {
    const { quality, seams, ownNoise } = await joinedAgainstWhole('region', (outputDir, region) => runScene({ ...still, outputDir, region }));
    expect(quality).toBeGreaterThanOrEqual(45);
    for (const seam of seams) expect(seam).toBeLessThanOrEqual(ownNoise);
  });

  test("when each region is rendered by a warm scene's children (its rows and margins in bands side by side, stitched, denoised once), the joined still matches the whole frame's as a fresh Blender's regions do", async () => {
    const server = new WarmScene({ scene: getScene(1)!, identity: sceneToolIdentity(1) });
    try {
      const { quality, seams, ownNoise } = await joinedAgainstWhole('warm-region', async (outputDir, region) => {
        const render = await server.render({ ...still, region }, 60_000, {}, 3);
        try {
          await mkdir(outputDir, { recursive: true });
          await writeFile(path.join(outputDir, REGION_FILE), await readOutput(path.join(render.folder, REGION_FILE), 16 * 1024 * 1024));
        } finally {
          await render.done();
        }
      });
      expect(quality).toBeGreaterThanOrEqual(45);
      for (const seam of seams) expect(seam).toBeLessThanOrEqual(ownNoise);
    } finally {
      await server.stop();
    }
  });

  test("when a region's rows are not the size its place in the frame gives, the join refuses them", async () => {
    // Two strips of 48 rows, given for a still of 192 rows in two: 96 rows each are wanted.
    const files = [0, 1].map((index) => path.join(dir, `short-${index}.png`));
    for (const file of files) await runFfmpeg(['-f', 'lavfi', '-i', `testsrc2=s=${still.resolutionX}x48`, '-frames:v', '1', '-update', '1', file]);
    await expect(joinRegions(files, still.resolutionX, still.resolutionY, path.join(dir, 'refused'))).rejects.toThrow(/region 0 is 320x48, not 320x96/);
    await writeFile(files[0], 'not a picture');
    await expect(joinRegions(files, still.resolutionX, 96, path.join(dir, 'refused'))).rejects.toThrow(/region 0 is not a PNG/);
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
      mode: 'still', isStillRender: true, isTest: false, resolution_x: 160, resolution_y: 192, samples: 4, custom_text: 'Pool', options: '', total_frames: 1, uploaded_frames: [],
      totalLogLines: 100, loggedLines: 0, estimatedPrice: 1, estimatedRenderTimeMinutes: 1, totalBillableTimeMinutes: 1, estimatedCloudRunCost: 0, priceBreakdown: '{}',
      priceCalculationTimestamp: now, paymentMethod: 'credits', paymentStatus: 'confirmed', attempts: 1,
    };
    await createJob(job);
    // Latency-aimed, with a frame far slower than a chunk's fixed part on the model: the plan splits it as far as the concurrency allows.
    const chunks = await planOrResumeChunks(job, { targetChunkSeconds: 600, maxChunks: 100, concurrency: 4, splitStills: true, chunkTime: { fixedSeconds: 0, perFrameSeconds: 1e6 } });
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
    expect([image.width, image.height]).toEqual([160, 192]);
  });
});
