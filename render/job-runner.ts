import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { getScene } from '../shared/catalogue';
import { frameFile } from '../shared/render-contract';
import { getJob, recordRenderedFrame, updateJob, type JobRecord, type OutputFile } from '../core/jobs/jobs';
import { deleteInput, downloadInput, downloadOutput, uploadOutput } from '../core/storage/storage';
import { completeJob, failJob } from '../core/jobs/outcomes';
import { BLENDER_MISSING_MESSAGE, findBlender, RenderError, runScene, type SceneArgs } from './blender';
import { encodeMp4, makeThumbnail } from './encode';

/** How often the worker tells the table it is alive (the sweep gives up after 5 minutes). */
export const HEARTBEAT_MS = 5_000;

export type RunOutcome = 'done' | 'failed' | 'stopped' | 'skipped';


/**
 * Renders one job from its record: marks it rendering, renders the frames still
 * missing (all of them on a first run), stores each frame as it is written so a
 * later worker can resume, encodes the animation, and records the outcome.
 */
export async function runJob(jobId: string, options: { signal?: AbortSignal } = {}): Promise<RunOutcome> {
  const found = await getJob(jobId);
  if (!found || (found.status !== 'queued' && found.status !== 'rendering')) return 'skipped';
  const now = new Date().toISOString();
  const job = await updateJob(jobId, {
    set: { status: 'rendering', lastHeartbeat: now, lastActive: now, lastRenderActivity: now, ...(found.startTime ? {} : { startTime: now }) },
    whenStatusIn: ['queued', 'rendering'],
  });
  if (!job) return 'skipped';

  const blender = await findBlender();
  if (!blender) return (await failJob(job, BLENDER_MISSING_MESSAGE, 'internal', { whenStatusIn: ['rendering'] })) ? 'failed' : 'stopped';

  const scene = getScene(job.sceneId);
  if (!scene) return (await failJob(job, `Scene ${job.sceneId} is not in the catalogue.`, 'internal', { whenStatusIn: ['rendering'] })) ? 'failed' : 'stopped';

  const workDir = await mkdtemp(join(tmpdir(), `render-${jobId.slice(0, 8)}-`));
  const stop = new AbortController();
  // The worker being stopped (task stopped, Ctrl-C on the local stack) stops Blender too.
  options.signal?.addEventListener('abort', () => stop.abort(), { once: true });
  let loggedLines = job.loggedLines ?? 0;
  const heartbeat = setInterval(() => {
    const at = new Date().toISOString();
    updateJob(jobId, { set: { lastHeartbeat: at, loggedLines: Math.min(loggedLines, job.totalLogLines - 1) }, whenStatusIn: ['rendering'] })
      .then((alive) => {
        if (!alive) stop.abort(); // abandoned by the user, or failed by the sweep: stop rendering
      })
      .catch((error) => console.error('Heartbeat failed', error));
  }, HEARTBEAT_MS);

  try {
    let inputFile: string | null = null;
    if (job.inputKey) {
      inputFile = join(workDir, `input${extname(job.inputKey).toLowerCase()}`);
      await downloadInput(job.inputKey, inputFile);
    }
    const done = new Set(job.uploaded_frames ?? []);
    const allFrames = job.isStillRender ? [1] : Array.from({ length: job.total_frames }, (_, i) => i + 1);
    const missing = allFrames.filter((frame) => !done.has(frame));
    const outputDir = join(workDir, 'out');
    await mkdir(join(outputDir, 'frames'), { recursive: true });

    const args: SceneArgs = {
      sceneId: job.sceneId,
      customText: job.custom_text ?? '',
      options: job.options,
      inputFile,
      resolutionX: job.resolution_x,
      resolutionY: job.resolution_y,
      mode: job.mode,
      frameStart: 1,
      frameEnd: job.isStillRender ? 1 : job.total_frames,
      frames: job.isStillRender ? undefined : missing,
      alignment: job.alignment ?? null,
      isTest: job.isTest,
      outputDir,
    };
    if (missing.length > 0) {
      // Each frame is stored as soon as Blender writes it, in order, so a killed worker loses at most the frame in flight.
      let storing = Promise.resolve();
      const storeFrame = async (frame: number) => {
        await uploadOutput(job.userId, jobId, frameFile(frame), join(outputDir, frameFile(frame)), 'image/png');
        if (!(await recordRenderedFrame(jobId, frame, Math.min(loggedLines, job.totalLogLines - 1)))) stop.abort();
      };
      await runScene(args, {
        signal: stop.signal,
        onLog: () => void (loggedLines += 1),
        onProgress: ({ frame }) => {
          if (!job.isStillRender) storing = storing.then(() => storeFrame(frame));
        },
      });
      await storing;
    }
    if (stop.signal.aborted) return 'stopped';
    const outputs = job.isStillRender ? await storeStill(job, outputDir) : await storeAnimation(job, outputDir, allFrames, done, inputFile, scene.type === 'sound');
    if (!(await completeJob(job, outputs))) return 'stopped';
    if (job.inputKey) await deleteInput(job.inputKey).catch((error) => console.error('Input not deleted', error));
    return 'done';
  } catch (error) {
    if (stop.signal.aborted) return 'stopped';
    // A bad upload is the user's to fix (no refund); anything else failed on our side.
    const badInput = error instanceof RenderError && error.kind === 'invalid-input';
    const reason = error instanceof RenderError ? error.userMessage : `The render failed on our side: ${(error as Error).message ?? String(error)}`;
    console.error(`Job ${jobId} failed`, error);
    return (await failJob(job, reason, badInput ? 'input' : 'internal', { whenStatusIn: ['rendering'] })) ? 'failed' : 'stopped';
  } finally {
    clearInterval(heartbeat);
    await rm(workDir, { recursive: true, force: true });
  }
}

async function storeStill(job: JobRecord, outputDir: string) {
  const file = join(outputDir, 'still.png');
  const stored = await uploadOutput(job.userId, job.jobId, 'final.png', file, 'image/png');
  const fileMetadata: OutputFile[] = [{ name: 'final.png', key: stored.key, contentType: 'image/png', size: stored.size }];
  return { fileMetadata, mainOutputPath: stored.key, mainOutputType: 'image/png' };
}

async function storeAnimation(job: JobRecord, outputDir: string, allFrames: number[], earlier: Set<number>, inputFile: string | null, withAudio: boolean) {
  // Frames an earlier worker rendered come back from storage before encoding.
  for (const frame of allFrames) if (earlier.has(frame)) await downloadOutput(job.userId, job.jobId, frameFile(frame), join(outputDir, frameFile(frame)));
  const frames = (await readdir(join(outputDir, 'frames'))).filter((f) => f.endsWith('.png'));
  if (frames.length < allFrames.length) throw new Error(`only ${frames.length} of ${allFrames.length} frames were rendered`);
  const video = join(outputDir, 'final.mp4');
  await encodeMp4(join(outputDir, 'frames'), video, 30, withAudio && inputFile ? inputFile : undefined);
  const thumbnail = join(outputDir, 'thumbnail.jpg');
  await makeThumbnail(video, thumbnail);
  const storedVideo = await uploadOutput(job.userId, job.jobId, 'final.mp4', video, 'video/mp4');
  const storedThumb = await uploadOutput(job.userId, job.jobId, 'thumbnail.jpg', thumbnail, 'image/jpeg');
  const fileMetadata: OutputFile[] = [
    { name: 'final.mp4', key: storedVideo.key, contentType: 'video/mp4', size: storedVideo.size },
    { name: 'thumbnail.jpg', key: storedThumb.key, contentType: 'image/jpeg', size: storedThumb.size },
  ];
  return { fileMetadata, mainOutputPath: storedVideo.key, mainOutputType: 'video/mp4' };
}
