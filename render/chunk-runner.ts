/**
 * Renders one chunk of a job's frames: the code an AWS Batch array child runs, and
 * each process of the local worker pool. The chunk is claimed under a condition
 * first, so two workers never render the same frames; every frame is stored as
 * soon as Blender writes it, so a lost worker costs at most the frame in flight; an
 * animation's chunk then encodes its frames into a video segment, which the finishing
 * step joins without re-encoding.
 */
import { lstat, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { pipeline } from 'node:stream/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { getScene, requiredUploadKind } from '#shared/catalogue';
import { FPS } from '#shared/frames';
import { renderedResolution } from '#shared/render-policy';
import { REGION_MARGIN_ROWS } from '#shared/render-manifest';
import { frameFile, REGION_FILE, regionFile, segmentFile } from '#shared/render-contract';
import { frameCostInputOf, framesOf, hasFinishingStep, regionRows, renderTimeLimitSeconds } from '#shared/render-plan';
import type { JobRecord } from '#core/jobs/jobs';
import type { ChunkRecord } from '#core/jobs/chunks';
import { renderTasks, taskReason, type HeldChunk, type TaskOutcome } from '#core/jobs/render-tasks';
import { jobFiles } from '#core/job-files/job-files';
import { openToWrite } from '#core/storage/no-follow';
import { outputFormatOf, rendersTransparent } from '#shared/output-formats';
import { deliverStill } from './still-delivery';
import { renewEveryHeartbeat, startChunkTakingOverLostClaim } from './task-leases';
import { encodeSegment } from './encode';
import { prepareForTool, RENDER_SETUP_ERROR, RENDER_SETUP_FAILED, toolAccessProblem } from './tool-environment';
import { storeFramePreview } from './frame-previews';
import { BLENDER_MISSING_MESSAGE, findBlender, RenderError, runScene, type SceneArgs } from './blender';
import type { WarmHooks, WarmRenderer, WarmRequest } from './warm-render';
import { log } from '#observability/logger';
import type { ChunkStep } from '#observability/metrics';

/** A frame whose upload or record fails is tried this many times before the chunk gives up. */
export const FRAME_STORE_ATTEMPTS = 3;

/** What a chunk's run ends in (core/jobs/render-tasks.ts says what each means). */
export type ChunkOutcome = TaskOutcome;

/** The log lines a running render shows: at most one short of the job's total (the last comes with its end), never negative. */
const linesShown = (logged: number, total: number) => Math.max(0, Math.min(logged, total - 1)) || 0;

export interface ChunkRunOptions {
  workerId: string;
  signal?: AbortSignal;
  /** Blender's render threads; by default all the machine's cores. */
  threads?: number;
  /** Called once with the figures of the run, for benchmarks. */
  onTimings?: (timings: ChunkTimings) => void;
  /**
   * The render function: a chunk found held by another worker may be the claim of a lost
   * environment (killed, or past its time limit), whose event Lambda sends again. Nothing
   * else would ever take that chunk back, so this worker watches the holder's lease: renewed,
   * the holder lives (a duplicate event) and the chunk is skipped; run out, it is claimed.
   */
  takeOverLostClaim?: boolean;
  /**
   * The chunk is rendered by a warm scene server's children where one is at hand (render/warm-render.ts): the render
   * function's own, or the local stack's over the pool's channel.
   */
  warm?: WarmRenderer;
}

export interface ChunkTimings {
  /** From the start of runChunk to its end. */
  totalMs: number;
  /** The Blender process's wall time. */
  blenderMs: number;
  frames: number;
  /** Where totalMs went, in order (CHUNK_STEPS): each step's wall time, for the steps this chunk reached. */
  steps: Partial<Record<ChunkStep, number>>;
}

export async function runChunk(jobId: string, index: number, options: ChunkRunOptions): Promise<ChunkOutcome> {
  const started = Date.now();
  const steps: ChunkTimings['steps'] = {};
  let marked = started;
  const step = (name: ChunkStep) => {
    const now = Date.now();
    steps[name] = (steps[name] ?? 0) + now - marked;
    marked = now;
  };
  const held: HeldChunk = { index, workerId: options.workerId };
  const start = options.takeOverLostClaim ? await startChunkTakingOverLostClaim(jobId, held, options.signal) : await renderTasks().startChunk(jobId, held);
  step('claim');
  // Another worker's live claim is its to run.
  if (!('job' in start)) return 'outcome' in start ? start.outcome : 'skipped';
  const { job, chunk } = start;
  const giveUp = (reason: string, cause: 'internal' | 'input', errorType?: string) =>
    renderTasks().failChunk(jobId, { ...held, reason: taskReason(reason), cause, ...(errorType ? { errorType } : {}) });

  if (!getScene(job.sceneId)) return giveUp(`Scene ${job.sceneId} is not in the catalogue.`, 'internal');
  // Before this worker's own Blender starts: Blender must be there, and a tools' user that cannot reach a job's folder
  // would fail it as a crash, on every attempt. What a warm server renders needs neither (its fallback does).
  const cannotRenderHere = async (): Promise<ChunkOutcome | undefined> => {
    const blender = await findBlender();
    if (!blender) return giveUp(BLENDER_MISSING_MESSAGE, 'internal');
    const setupProblem = await toolAccessProblem(blender.path);
    if (!setupProblem) return undefined;
    log.error(setupProblem, { jobId, chunk: index });
    return giveUp(RENDER_SETUP_FAILED, 'internal', RENDER_SETUP_ERROR);
  };
  const { warm } = options;
  if (!warm) {
    const refused = await cannotRenderHere();
    if (refused) return refused;
  }
  step('setup');

  const workDir = await mkdtemp(join(tmpdir(), `chunk-${jobId.slice(0, 8)}-${index}-`));
  const stop = new AbortController();
  let stoppedBySignal = false;
  // The worker being stopped (Spot reclaim, Ctrl-C on the local stack) stops Blender too.
  options.signal?.addEventListener(
    'abort',
    () => {
      stoppedBySignal = true;
      stop.abort();
    },
    { once: true },
  );
  // The worker stopped (the job stopped under it, or it was stopped from outside): the chunk goes back at once.
  const giveBack = () => renderTasks().giveBackChunk(jobId, { ...held, stoppedFromOutside: stoppedBySignal }).catch(() => 'stopped' as const);
  let loggedLines = job.loggedLines ?? 0;
  // No longer this worker's to run (abandoned, failed by the sweep, given to another): Blender stops.
  const unwatch = renewEveryHeartbeat(
    () => renderTasks().renewChunk(jobId, { ...held, loggedLines: linesShown(loggedLines, job.totalLogLines) }),
    { jobId, chunk: index },
    () => stop.abort(),
  );

  let blenderMs = 0;
  let stores: ReturnType<typeof storeFramesInOrder> | undefined;
  try {
    const inputFile = await fetchCheckedInput(job, workDir);
    const outputDir = join(workDir, 'out');
    await mkdir(join(outputDir, 'frames'), { recursive: true });
    step('input');
    // Frames a lost worker already stored are not rendered again.
    const stored = new Set(job.uploaded_frames ?? []);
    const frames = job.isStillRender ? [1] : framesOf(chunk).filter((frame) => !stored.has(frame));
    // A still split into regions (shared/render-plan.ts): this chunk renders its region's rows, with the manifest's
    // margin for the denoiser, and stores them final, so the finishing step only joins.
    const region = job.isStillRender && hasFinishingStep(job) ? { ...regionRows(renderedResolution(job).y, index, job.chunksTotal!), margin: REGION_MARGIN_ROWS } : undefined;
    const frameSeconds: Record<string, number> = {};
    const blenderStart = Date.now();
    if (frames.length > 0) {
      stores = storeFramesInOrder(job, held, outputDir, () => loggedLines, () => stop.abort());
      let lastMark = Date.now();
      const args: SceneArgs = { ...sceneArgsFor(job, frames, inputFile, outputDir), ...(region ? { region } : {}) };
      const timeoutMs = renderTimeLimitSeconds(frames.length, frameCostInputOf(job)) * 1000;
      // A frame written (by the warm server's children or by Blender): its time, and an animation's is stored.
      const written = new Set<number>();
      const frameWritten = (frame: number) => {
        const now = Date.now();
        frameSeconds[String(frame)] = Number(((now - lastMark) / 1000).toFixed(3));
        lastMark = now;
        written.add(frame);
        if (!job.isStillRender) stores!.add(frame);
      };
      // A cold server is started for what follows: a test render's next click, or this job's chunks that wait for a
      // worker. On the render function's fan-out (a chunk per environment) none wait: no environment pays a start it
      // would not use, and a paid chunk finds a server where the scene's test still left one.
      const warmUp = job.isTest || (job.chunksTotal ?? 1) - (job.chunksDone ?? 0) - (job.chunksRunning ?? 0) - 1 > 0;
      const request = { args, deadlineMs: timeoutMs, children: options.threads ?? availableParallelism(), warmUp };
      const warmLog = warm && (await renderWarm(warm, request, { jobId, chunk: index }, { signal: stop.signal, onFrame: frameWritten }));
      if (warmLog) {
        loggedLines += warmLog.length;
        blenderMs = Date.now() - blenderStart;
        if (job.isStillRender) frameSeconds['1'] = Number((blenderMs / 1000).toFixed(3));
      } else {
        const refused = warm && (await cannotRenderHere());
        if (refused) return refused;
        // A warm server that ended under the chunk may have written some of its frames: they are not rendered again.
        const rest = args.frames?.filter((frame) => !written.has(frame));
        if (!rest || rest.length > 0) await runScene(rest ? { ...args, frames: rest } : args, {
          signal: stop.signal,
          threads: options.threads,
          timeoutMs,
          onLog: (message, level) => {
            loggedLines += 1;
            // The render loop starts after the scene is built: the first frame's time starts there.
            if (level === 'info' && message.startsWith('rendering ')) {
              lastMark = Date.now();
              if (steps.build === undefined) step('build');
            }
          },
          onProgress: ({ frame }) => frameWritten(frame),
        }).finally(() => (blenderMs = Date.now() - blenderStart));
      }
      step('render');
      await stores!.finished();
      step('store');
    }
    if (stop.signal.aborted) return await giveBack();

    // The steps so far go with the chunk's completion: production's figures, which the customer's promise learns from.
    const finished = (segment?: string) => renderTasks().finishChunk(jobId, { ...held, frameSeconds, ...(segment ? { segment } : {}), stepsMs: steps });
    if (region) {
      // The finishing step joins the regions' rows once every region is stored.
      await jobFiles(job).store(regionFile(index), join(outputDir, REGION_FILE), 'image/png');
      return (await finished()) ? 'done' : 'stopped';
    }
    if (job.isStillRender) return (await deliverStill(job, outputDir, finished)) ? 'done' : 'stopped';
    const segment = await storeSegment(job, chunk, join(outputDir, 'frames'), workDir);
    // The chunk's record names its segment: the finishing step joins the recorded segments without asking the bucket.
    return (await finished(segment)) ? 'done' : 'stopped';
  } catch (thrown) {
    // A frame that could not be stored stops Blender: that failure, not the abort, is the cause.
    const storeError = stores ? await stores.finished().then(() => undefined, (e: unknown) => e) : undefined;
    const error = storeError ?? thrown;
    if (stop.signal.aborted && !storeError) return await giveBack();
    // A bad upload is the user's to fix (no refund, no retry); anything else failed on our side and is tried again.
    if (error instanceof RenderError && error.kind === 'invalid-input') return giveUp(error.userMessage, 'input');
    const reason = error instanceof RenderError ? `${error.userMessage} ${error.details.logTail?.slice(-3).join(' | ') ?? ''}`.trim() : String((error as Error)?.message ?? error);
    log.error('Chunk attempt failed', { jobId, chunk: index, attempt: chunk.attempts, error });
    return await renderTasks().retryChunk(jobId, { ...held, reason: taskReason(reason) });
  } finally {
    unwatch();
    await rm(workDir, { recursive: true, force: true });
    step('finish');
    options.onTimings?.({ totalMs: Date.now() - started, blenderMs, frames: framesOf(chunk).length, steps });
  }
}

/**
 * The chunk by the warm server: its INFO lines, or undefined when the server could not serve it (not started
 * yet, could not start, or ended under the request), and a fresh Blender renders it instead. The customer's own errors,
 * a render past its time limit and a stopped one are the render's outcome as a fresh Blender's would be.
 */
async function renderWarm(warm: WarmRenderer, request: WarmRequest, about: { jobId: string; chunk: number }, hooks: WarmHooks): Promise<string[] | undefined> {
  try {
    return await warm(request, hooks);
  } catch (error) {
    if (error instanceof RenderError && (error.kind === 'invalid-input' || error.kind === 'timed-out' || error.kind === 'aborted')) throw error;
    log.warn('The warm scene server could not render the chunk: a fresh Blender renders it', { ...about, error });
    return undefined;
  }
}

/** The job's upload, if it has one, in workDir, checked again on the very bytes Blender will open: refused, the customer's error. */
async function fetchCheckedInput(job: JobRecord, workDir: string): Promise<string | null> {
  if (!job.inputKey) return null;
  const inputFile = join(workDir, `input${extname(job.inputKey).toLowerCase()}`);
  const refused = await jobFiles(job).fetchCheckedInput(inputFile, requiredUploadKind(getScene(job.sceneId)!) ?? 'audio');
  if (refused) throw new RenderError('invalid-input', refused);
  return inputFile;
}

/**
 * Encodes the chunk's frames into its video segment and stores it, so the finishing step
 * only joins segments. Frames an earlier attempt stored (a lost worker's) are fetched back
 * first: a segment always holds every frame of its chunk. Returns the segment's name.
 */
async function storeSegment(job: JobRecord, chunk: ChunkRecord, framesDir: string, workDir: string): Promise<string> {
  for (const frame of framesOf(chunk)) {
    const file = join(framesDir, frameFile(frame).split('/').pop()!);
    if (await lstat(file).catch(() => undefined)) continue;
    const stored = await jobFiles(job).read(frameFile(frame));
    // Blender's folder (the tools' user owns it once Blender ran): written without following a link it may have put there.
    const handle = await openToWrite(file);
    await pipeline(stored, handle.createWriteStream());
  }
  // ffmpeg runs as the tools' user (render/encode.ts): it reads the frames and writes the segment in a
  // folder of its own, made here (Blender never had it), which the upload reads without following links.
  const segmentDir = join(workDir, 'segment');
  await mkdir(segmentDir);
  await prepareForTool([segmentDir]);
  const segment = join(segmentDir, 'segment.mp4');
  await encodeSegment(framesDir, chunk.frameStart, chunk.frameEnd, segment, FPS);
  const name = segmentFile(chunk.frameStart);
  await jobFiles(job).store(name, segment, 'video/mp4');
  return name;
}

export function sceneArgsFor(job: JobRecord, frames: number[], inputFile: string | null, outputDir: string): SceneArgs {
  return {
    sceneId: job.sceneId,
    customText: job.custom_text ?? '',
    options: job.options,
    inputFile,
    // A test render's size comes from the shared rule the pages show (the scene script caps it again, to the same numbers).
    resolutionX: renderedResolution(job).x,
    resolutionY: renderedResolution(job).y,
    mode: job.mode,
    frameStart: 1,
    frameEnd: job.isStillRender ? 1 : job.total_frames,
    frames: job.isStillRender ? undefined : frames,
    alignment: job.alignment ?? null,
    // An audio upload is decoded up to the duration it was priced for, whatever its file holds beyond.
    ...(job.fileDuration ? { maxAudioSeconds: job.fileDuration } : {}),
    isTest: job.isTest,
    ...(job.samples ? { samples: job.samples } : {}),
    ...(rendersTransparent(outputFormatOf(job)) ? { transparent: true } : {}),
    outputDir,
  };
}

export class FrameStoreError extends Error {}

/**
 * Stores frames one after another, in the order Blender wrote them. A failed upload
 * or record is tried again with a short back-off; when a frame cannot be stored the
 * render is stopped and finished() rejects with a FrameStoreError, never leaving a
 * rejected promise unobserved.
 */
function storeFramesInOrder(job: JobRecord, held: HeldChunk, outputDir: string, loggedLines: () => number, stopRender: () => void) {
  const files = jobFiles(job);
  let chain: Promise<void> = Promise.resolve();
  let failure: FrameStoreError | undefined;
  const store = async (frame: number) => {
    // The preview goes up beside the frame, not after it, and once (a preview that cannot be stored is only logged);
    // both are stored before the frame is recorded, so a frame the job lists as done already has its preview.
    const preview = storeFramePreview(files, job.jobId, frame, outputDir);
    for (let attempt = 1; ; attempt += 1) {
      try {
        await files.store(frameFile(frame), join(outputDir, frameFile(frame)), 'image/png');
        await preview;
        // False: the job stopped rendering (abandoned, failed by the sweep).
        if (!(await renderTasks().recordFrame(job.jobId, { ...held, frame, loggedLines: linesShown(loggedLines(), job.totalLogLines) }))) stopRender();
        return;
      } catch (error) {
        if (attempt >= FRAME_STORE_ATTEMPTS) throw new FrameStoreError(`frame ${frame} could not be stored: ${(error as Error)?.message ?? error}`);
        await new Promise((r) => setTimeout(r, 250 * 2 ** attempt));
      }
    }
  };
  return {
    add(frame: number) {
      chain = chain.then(() => (failure ? undefined : store(frame))).catch((error) => {
        failure = error instanceof FrameStoreError ? error : new FrameStoreError(String(error));
        stopRender();
      });
    },
    async finished() {
      await chain;
      if (failure) throw failure;
    },
  };
}
