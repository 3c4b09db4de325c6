/**
 * The serverless fan-out's rules: which engine renders a job on AWS and how it is cut.
 * A render function (the worker's container image on Lambda) starts in seconds where a
 * Batch task on Fargate takes a minute and more, so every chunk that fits in the
 * function's time limit renders there, one frame per chunk while the job has fewer frames
 * than the configured concurrency; a frame too long for the function goes to Batch.
 * And when a job there is delivered (deliveryBands): best, typical and pessimistic, from one
 * table of figures with their sources; the customer is promised the typical band.
 */
import { getScene, requiredUploadKind } from './catalogue';
import { FPS } from './frames';
import { estimateFrameSeconds, framesOf, planChunks, regionRenderedRows, type ChunkRange, type PlanInput, type PlanSettings } from './render-plan';
import { frameSpreadOf } from './render-manifest';
import { FAST_PATH_MAX_CHUNKS, PROMISED_BAND, SAFE_CHUNK_SECONDS } from './render-policy';

/**
 * Lambda's largest function: 10,240 MB gives 6 vCPUs ("When you configure 10,240 MB,
 * your Lambda function has access to up to 6 vCPUs", Lambda developer guide, memory
 * configuration) and 15 minutes at most per invocation. Cycles renders on 6 threads; the CPU
 * time they share is that of 5.79 vCPUs (FUNCTION_VCPU_SHARE), as the delivery's bands count it.
 */
export const RENDER_FUNCTION = { memoryMiB: 10_240, vcpus: 6, timeoutSeconds: 15 * 60 } as const;
/** The render function's reserved concurrency, a deploy setting (renderFunctionConcurrency). */
export const DEFAULT_FAST_PATH_CONCURRENCY = 200;
/**
 * The render function's processor unless the deploy setting renderFunctionArchitecture says otherwise: x86_64. arm64
 * costs 20 % less a GB-second, but no published Cycles figure for a Graviton vCPU against a core like ours could be
 * found, and its image has never run: at the typical band's assumed 0.8 it would cost a little less than x86 (bench:delivery
 * prints both). arm64 becomes the default with a measured figure.
 */
export const DEFAULT_RENDER_FUNCTION_ARCHITECTURE: 'x86_64' | 'arm64' = 'x86_64';
/** Segments (and a split still's regions) the finishing step downloads at once: enough to hide each request's latency, few enough for a small worker. */
export const SEGMENT_DOWNLOADS_AT_ONCE = 16;

export type RenderEngine = 'function' | 'batch';

/** A function environment's cold start, at most Lambda's 10-s Init limit (Lambda developer guide, execution environment lifecycle). */
export const FUNCTION_START_SECONDS = 10;
/** The CPU share of 10,240 MB: "At 1,769 MB, a function has the equivalent of one vCPU" (Lambda developer guide, memory configuration). */
export const FUNCTION_VCPU_SHARE = RENDER_FUNCTION.memoryMiB / 1769;
/** Lambda's function scaling: "1,000 execution environment instances every 10 seconds" per function (Lambda developer guide, scaling behavior). */
export const ENVIRONMENTS_PER_10_SECONDS = 1000;
/**
 * A throttled asynchronous event is retried: "The retry interval increases exponentially from 1 second after the first
 * attempt to a maximum of 5 minutes" (Lambda developer guide, error handling for asynchronous invocation). The growth
 * per step is not published: doubling assumed.
 */
export const THROTTLE_BACKOFF = { firstSeconds: 1, maxSeconds: 300 } as const;

/** The three bands a delivery time is given in; the customer is promised the typical one. */
export type DeliveryBand = 'best' | 'typical' | 'pessimistic';
export const DELIVERY_BANDS: readonly DeliveryBand[] = ['best', 'typical', 'pessimistic'];

/**
 * Each step's figure on AWS, in one band. CPU seconds measured on one core here (the chunk model) become the
 * function's seconds through the vCPU's speed, the vCPUs and the threads' efficiency.
 */
export interface DeliveryAssumptions {
  /** From the launcher's asynchronous Invoke to the handler starting. */
  dispatchSeconds: number;
  /** Share of the back-off step (THROTTLE_BACKOFF) a throttled chunk still waits once a slot frees. */
  throttleRetryShare: number;
  /** Init of each environment the job's first chunks start. */
  coldStartSeconds: number;
  /** Blender's first read of its files from the lazily loaded image, once per new environment. */
  pageInSeconds: number;
  /** A Graviton (arm64) vCPU's speed against a core here. */
  arm64Speed: number;
  /** An x86_64 vCPU's speed against a core here. */
  x86Speed: number;
  vcpus: number;
  /** The threads' wall-time share of ideal speed on the vCPUs, at most (the measured efficiency applies when lower). */
  threadEfficiency: number;
  s3RequestSeconds: number;
  s3MegabytesPerSecond: number;
  /** A chunk's job credentials: the session broker's synchronous Invoke and its AssumeRole. */
  credentialsSeconds: number;
  /** Blender's version, asked once per environment: on a cold environment's first chunk. */
  versionProbeSeconds: number;
  /** The chunk's four questions to the task server (claim, frames, segment, done). */
  recordSeconds: number;
  /** How much longer the job's slowest chunk renders than the modelled chunk, a share of its render: the scene's measured frame spread (stragglerRow). */
  stragglerShare: number;
  /** The finishing step's work beyond the modelled downloads, joins and uploads. */
  finishingExtraSeconds: number;
}

/** One figure in the three bands, and where it comes from. */
export type AssumptionRow = Record<DeliveryBand, number> & { source: string };

/**
 * The delivery's figures, best / typical / pessimistic, each with its source: AWS's published figure where there is
 * one (the document's title), "assumed" where there is none. The best band keeps the kind assumptions the bench
 * used alone before (marked "as before"); the typical band is what the customer is promised (readyInSeconds).
 * The straggler is the scene's own, measured (stragglerRow).
 */
export const DELIVERY_ASSUMPTIONS: Record<Exclude<keyof DeliveryAssumptions, 'stragglerShare'>, AssumptionRow> = {
  dispatchSeconds: { best: 0.5, typical: 0.5, pessimistic: 1, source: "From the launcher's asynchronous Invoke to the handler starting: not published; 0.5 s assumed (as before), 1 s pessimistic." },
  throttleRetryShare: {
    best: 0, typical: 0.5, pessimistic: 1,
    source: 'A chunk past the reserved concurrency is throttled and retried "exponentially from 1 second after the first attempt to a maximum of 5 minutes" (Lambda developer guide, error handling for asynchronous invocation; doubling assumed): once a slot frees, the chunk waits for its next retry, half a step typically (a slot frees anywhere in the step), a whole step pessimistically, not at all at best (as before).',
  },
  coldStartSeconds: {
    best: FUNCTION_START_SECONDS, typical: FUNCTION_START_SECONDS, pessimistic: FUNCTION_START_SECONDS,
    source: 'A large container image: "startup times of several seconds" (What\'s New, "AWS Lambda now supports SnapStart for container image functions", Sep 2026), and "The Init phase is limited to 10 seconds" (Lambda developer guide, execution environment lifecycle): the limit, in every band.',
  },
  pageInSeconds: { best: 0, typical: 2, pessimistic: 5, source: "Blender's first read of its files from the image, which Lambda loads lazily, once per new environment: not published, not measured; none at best (as before), 2 s typical, 5 s pessimistic: assumed." },
  arm64Speed: {
    best: 1, typical: 0.8, pessimistic: 0.7,
    source: 'A Graviton2 vCPU rendering Cycles, against a core here: not measured (no arm64 machine). AWS: "up to 19 percent better performance" (AWS News Blog, "AWS Lambda Functions Powered by AWS Graviton2 Processor", Sep 2021); published comparisons range from 16 % slower to 19 % faster, and Cycles\' Embree runs on Arm through a 4-wide SSE translation. As fast at best (as before); 0.8 typical, 0.7 pessimistic: assumed.',
  },
  x86Speed: { best: 1, typical: 1, pessimistic: 0.9, source: 'An x86_64 vCPU against a core here: not measured; as fast at best (as before) and typically, 10 % slower pessimistically (a vCPU is a hyperthread of a shared host): assumed.' },
  vcpus: {
    best: RENDER_FUNCTION.vcpus, typical: FUNCTION_VCPU_SHARE, pessimistic: FUNCTION_VCPU_SHARE,
    source: '10,240 MB: "up to 6 vCPUs" (Lambda developer guide, memory configuration): 6 at best (as before); CPU time is given in proportion to memory, 1,769 MB being one vCPU (same guide): 5.79 typical and pessimistic.',
  },
  threadEfficiency: {
    best: 1, typical: 0.85, pessimistic: 0.75,
    source: "The threads' wall-time share of ideal speed, at most: the efficiency bench:delivery measures per doubling (1 and 2 threads, CPU seconds) compounded to the vCPUs, and no more than this. CPU time does not see idle threads: uncapped at best (as before); 85 % typical, 75 % pessimistic: assumed.",
  },
  s3RequestSeconds: { best: 0.2, typical: 0.2, pessimistic: 0.3, source: 'S3: "small object latencies (and first-byte-out latencies for larger objects) of roughly 100-200 milliseconds" (S3 user guide, optimizing performance): 0.2 s (as before); 0.3 s pessimistic: assumed.' },
  s3MegabytesPerSecond: { best: 85, typical: 85, pessimistic: 40, source: 'S3: "one concurrent request for each 85-90 MB/s of desired network throughput" (S3 performance whitepaper): 85 MB/s a stream (as before); a function\'s own network share is not published: 40 MB/s pessimistic, assumed.' },
  credentialsSeconds: {
    best: 0.15, typical: 0.7, pessimistic: 1.3,
    source: 'A synchronous Invoke of the session broker and its STS AssumeRole, asked as the invocation starts, beside the chunk\'s claim and Blender\'s version (only what they leave is on the path, before an input\'s download; a scene without input needs them after its render); a job\'s chunks start as many broker environments at once, and a cold start "varies from under 100 ms to over 1 second" (Lambda developer guide, cold starts). Warm (0.05 s) plus AssumeRole 0.1 s at best; a 0.5-s cold start plus 0.2 s typical; 1 s plus 0.3 s pessimistic: assumed.',
  },
  versionProbeSeconds: { best: 0, typical: 0.31, pessimistic: 0.5, source: '`blender --version`, asked once per environment (render/blender-install.ts keeps the answer for the process): 0.31 s median on one core here (bench:worker, 28 November 2026), on the first chunk of each cold environment; none on a warm one (best); 0.5 s on a slower vCPU (pessimistic), assumed.' },
  recordSeconds: {
    best: 4 * (0.05 + 0.01), typical: 4 * (0.1 + 0.01), pessimistic: 4 * (0.2 + 0.02),
    source: "The chunk's four questions to the task server (claim, frames, segment, done), each a synchronous Invoke of the session broker and its table write: a warm Invoke's overhead is not published (0.05 s at best as before, 0.1 s typical, 0.2 s pessimistic: assumed); DynamoDB advertises single-digit milliseconds (0.01 s; 0.02 s pessimistic).",
  },
  finishingExtraSeconds: {
    best: 0, typical: 1, pessimistic: 3,
    source: "The finishing step's work beyond the modelled downloads, joins and uploads (an animation's thumbnail, a split still's preview; Blender's version is kept from the environment's chunk): not measured; none at best (as before), 1 s typical, 3 s pessimistic: assumed.",
  },
};

/**
 * How much longer the slowest chunk of the scene's animation renders than the modelled chunk, which renders every frame
 * at the still's measured cost: from the frames the manifest measured over the animation (FrameSpread: each frame's
 * render part against the still's). A job's chunks render every frame, so its slowest chunk renders at least the
 * slowest frame measured: the best band. A frame between two measured ones may cost more than either; by at most the
 * steepest change measured between neighbouring frames (assumed: the cost changes no faster between them than anywhere
 * measured), half of it typically, all of it pessimistically. A chunk of several frames averages their costs, so there
 * it errs slow. A still renders the very frame the cost measures (its regions' uneven rows are the model's
 * regionImbalance): no straggler. Shared hosts' own variance is not in it: not published, not measured; the
 * pessimistic band's slower vCPU (x86Speed, arm64Speed) stands for a slower host under every chunk.
 */
export function stragglerRow(sceneId: number): AssumptionRow {
  const found = frameSpreadOf(sceneId);
  if (!found) return { best: 0, typical: 0, pessimistic: 0, source: 'No frame spread measured yet (npm run bench:frame-costs -- --spread --write): none counted.' };
  const { spread, measured } = found;
  const slowest = Math.max(...spread.ratios);
  const steepest = Math.max(0, ...spread.ratios.slice(1).map((ratio, i) => Math.abs(ratio - spread.ratios[i])));
  const share = (extra: number) => Math.max(0, slowest + extra - 1);
  const whose = measured ? '' : ' (this scene not measured: the widest measured spread)';
  return {
    best: share(0),
    typical: share(steepest / 2),
    pessimistic: share(steepest),
    source:
      `Measured by bench:frame-costs on ${spread.measuredOn}${whose}: frames ${spread.frames.join(', ')} of the animation at ${spread.size}, each rendered twice by a fresh Blender, ` +
      `render part ${Math.min(...spread.ratios).toFixed(2)}-${slowest.toFixed(2)} of the still's; the slowest measured frame at best, ` +
      `plus half (typical) or all (pessimistic) of the steepest step between neighbouring frames (${steepest.toFixed(2)}): assumed. Animations only; host variance not counted.`,
  };
}

/** One band's figures for a scene's job: the table's, and the scene's measured straggler. */
export function assumptionsOf(band: DeliveryBand, sceneId: number): DeliveryAssumptions {
  const table = Object.fromEntries(Object.entries(DELIVERY_ASSUMPTIONS).map(([name, row]) => [name, row[band]])) as Omit<DeliveryAssumptions, 'stragglerShare'>;
  return { ...table, stragglerShare: stragglerRow(sceneId)[band] };
}

/**
 * What a chunk on the function spends besides its frames' pure rendering, and how Cycles'
 * threads scale up to the function's vCPUs. Measured by `npm run bench:delivery` on this
 * project's machines (25 November 2026: Blender's serial part 2.25 CPU-s, 96.9 % efficiency
 * per doubling of threads, a Full-HD frame's segment encode 0.40 CPU-s and 51 kB), frames and
 * inputs at the sizes we store (a Full-HD PNG about 4 MB, an upload up to 5 MB typical), and
 * S3's published figures and the task server's round trips as the best band has them
 * (DELIVERY_ASSUMPTIONS). The bench plans with its own fresh measurements through the same functions.
 */
export interface ChunkModel {
  /** Blender's start and scene build, once per chunk (CPU-s, single-threaded). */
  serialSeconds: number;
  /** Share of ideal speed kept at each doubling of render threads. */
  efficiencyPerDoubling: number;
  /** Encoding one Full-HD frame into the chunk's segment. */
  encodeSecondsPerFrame: number;
  /** One frame's share of the segment, MB. */
  segmentMbPerFrame: number;
  frameMb: number;
  inputMb: number;
  s3RequestSeconds: number;
  s3MegabytesPerSecond: number;
  /** The chunk's questions to the task server (claim, frames, segment, done). */
  recordSeconds: number;
}

export const MEASURED_CHUNK_MODEL: ChunkModel = {
  serialSeconds: 2.25,
  efficiencyPerDoubling: 0.969,
  encodeSecondsPerFrame: 0.4,
  segmentMbPerFrame: 0.051,
  frameMb: 4,
  inputMb: 5,
  s3RequestSeconds: DELIVERY_ASSUMPTIONS.s3RequestSeconds.best,
  s3MegabytesPerSecond: DELIVERY_ASSUMPTIONS.s3MegabytesPerSecond.best,
  recordSeconds: DELIVERY_ASSUMPTIONS.recordSeconds.best,
};

/**
 * What a still's regions and an animation's finishing step cost here (CPU-s on one core), as
 * bench:delivery measures them: its run of 25 November 2026 (docs/render-farm.md) unless it passes its own.
 */
export interface FinishingModel {
  /** Joining 120 Full-HD one-frame segments (concat demuxer, stream copy). */
  joinSecondsPer120Frames: number;
  /** The video's size, MB per second of it (H.264 at crf 18). */
  videoMbPerSecond: number;
  /** What a region pays whatever its area (Blender's start, the scene build, BVH), single-threaded. */
  regionFixedSeconds: number;
  /** How much more the slowest strip's rows cost than their share of the frame's rows (1: even). */
  regionImbalance: number;
  /** One denoise of a Full-HD frame (threaded): part of every final frame's measured cost; a region denoises its rows' share. */
  denoiseSeconds: number;
  /** The finishing step of a split still: the regions' final rows joined into the still and its preview (ffmpeg). */
  regionJoinSeconds: number;
}

export type DeliveryModel = ChunkModel & FinishingModel;

export const MEASURED_DELIVERY_MODEL: DeliveryModel = {
  ...MEASURED_CHUNK_MODEL,
  joinSecondsPer120Frames: 1.08,
  videoMbPerSecond: 1.5,
  regionFixedSeconds: 1.73,
  regionImbalance: 1,
  denoiseSeconds: 6.79,
  // Measured on 29 November 2026: 0.33-0.34 CPU-s for a Full-HD still from 1 to 16 strips (render/region-stitch.ts).
  regionJoinSeconds: 0.34,
};

/** The questions a chunk asks the task server (DELIVERY_ASSUMPTIONS.recordSeconds counts them), and the finishing step: its start and the job's completion. */
const CHUNK_TASK_QUESTIONS = 4;
const FINISHING_TASK_QUESTIONS = 2;

/** One object in or out of S3 under the model's published latency and throughput. */
export const transferSeconds = (megabytes: number, model: ChunkModel = MEASURED_CHUNK_MODEL) => model.s3RequestSeconds + megabytes / model.s3MegabytesPerSecond;

/** How the function turns CPU seconds measured on one core here into its own seconds. */
export interface FunctionCpu {
  /** A vCPU's speed against a core here (single-threaded work). */
  speed: number;
  /** What the vCPUs are worth together, in cores here, at the threads' efficiency (threaded work). */
  parallelCores: number;
}

/** RENDER_FUNCTION's vCPUs each as fast as a core here, at the measured efficiency for each doubling: a plain conversion (the planner and the bands use bandCpu). */
export const plannedCpu = (model: ChunkModel = MEASURED_CHUNK_MODEL): FunctionCpu => ({
  speed: 1,
  parallelCores: RENDER_FUNCTION.vcpus * model.efficiencyPerDoubling ** Math.log2(RENDER_FUNCTION.vcpus),
});

/** A band's function: its vCPUs at its speed for the processor, at the measured efficiency but no more than the band allows. */
export function bandCpu(assumptions: DeliveryAssumptions, model: ChunkModel, architecture: 'x86_64' | 'arm64'): FunctionCpu {
  const speed = architecture === 'arm64' ? assumptions.arm64Speed : assumptions.x86Speed;
  const efficiency = Math.min(assumptions.threadEfficiency, model.efficiencyPerDoubling ** Math.log2(assumptions.vcpus));
  return { speed, parallelCores: assumptions.vcpus * efficiency * speed };
}

/**
 * One frame on the function's vCPUs, from its CPU seconds on one core: the serial part on one
 * vCPU, the rest spread over the vCPUs (by default the planner's: a vCPU as fast as a core here).
 */
export function functionFrameSeconds(cpuSeconds: number, model: ChunkModel = MEASURED_CHUNK_MODEL, cpu: FunctionCpu = plannedCpu(model)): number {
  return model.serialSeconds / cpu.speed + Math.max(0, cpuSeconds - model.serialSeconds) / cpu.parallelCores;
}

const sum = (steps: object) => Object.values(steps).reduce((a: number, b: number) => a + b, 0);

/**
 * A chunk's time on the function, as what it spends once (its input, Blender's serial part,
 * its segment's upload and its records) and per frame (rendering, encoding it into the segment,
 * storing the PNG and its share of the segment), each step named. frameCpuSeconds: one frame's
 * CPU seconds (default the manifest's); cpu: the function (default the planner's).
 */
export function functionChunkTime(input: PlanInput, model: ChunkModel = MEASURED_CHUNK_MODEL, frameCpuSeconds = estimateFrameSeconds({ ...input, cores: 1 }), cpu: FunctionCpu = plannedCpu(model)) {
  const animated = !input.isStill;
  const needsInput = requiredUploadKind(getScene(input.sceneId)!) !== null;
  const frame = functionFrameSeconds(frameCpuSeconds, model, cpu);
  const blenderStart = model.serialSeconds / cpu.speed;
  const once = { input: needsInput ? transferSeconds(model.inputMb, model) : 0, blenderStart, store: animated ? model.s3RequestSeconds : 0, taskServer: model.recordSeconds };
  const perFrame = {
    render: frame - blenderStart,
    encode: animated ? model.encodeSecondsPerFrame / cpu.speed : 0,
    store: transferSeconds(model.frameMb, model) + (animated ? model.segmentMbPerFrame / model.s3MegabytesPerSecond : 0),
  };
  return { frameSeconds: frame, once, perFrame, fixedSeconds: sum(once), perFrameSeconds: sum(perFrame) };
}

/**
 * The chunk time the planner sizes chunks by: the pessimistic band's (its vCPU speed and thread efficiency for the
 * default processor, and for an animation the scene's slowest frames, its straggler share of each frame's render), so
 * a chunk planned within SAFE_CHUNK_SECONDS ends well inside the function's limit even there; the best band's figures
 * put the 10-minute track's chunks past it.
 */
export function planningChunkTime(input: PlanInput, model: ChunkModel = MEASURED_CHUNK_MODEL, frameCpuSeconds?: number) {
  const pessimistic = assumptionsOf('pessimistic', input.sceneId);
  const time = functionChunkTime(input, model, frameCpuSeconds, bandCpu(pessimistic, model, DEFAULT_RENDER_FUNCTION_ARCHITECTURE));
  const straggler = input.isStill ? 0 : time.perFrame.render * pessimistic.stragglerShare;
  return { ...time, perFrameSeconds: time.perFrameSeconds + straggler };
}

/**
 * The fast path's chunk sizing: latency first (a final still in regions), and no chunk planned
 * past SAFE_CHUNK_SECONDS by the time it spends in the pessimistic band (planningChunkTime).
 */
export function fastPathSettings(input: PlanInput, concurrency = DEFAULT_FAST_PATH_CONCURRENCY, model: ChunkModel = MEASURED_CHUNK_MODEL, frameCpuSeconds?: number): PlanSettings {
  const { fixedSeconds, perFrameSeconds } = planningChunkTime(input, model, frameCpuSeconds);
  return { targetChunkSeconds: SAFE_CHUNK_SECONDS, maxChunks: FAST_PATH_MAX_CHUNKS, concurrency, cores: RENDER_FUNCTION.vcpus, splitStills: true, chunkTime: { fixedSeconds, perFrameSeconds } };
}

export interface FastPathPlan {
  engine: RenderEngine;
  chunks: ChunkRange[];
  /** The first estimate of one frame on the engine's cores. */
  frameSeconds: number;
  /** The longest chunk's estimated time on the engine (on the function, in the pessimistic band: never past SAFE_CHUNK_SECONDS). */
  chunkSeconds: number;
}

/** What of the function's /tmp the finishing step may fill: the rest is the worker's own (its scene copy, a frame in flight). */
const FINISHING_STORAGE_SHARE = 0.75;

/**
 * The MB an animation's finishing step holds on the function's /tmp at once: every chunk's segment and the joined
 * video (render/finish-step.ts), a Full-HD frame's share of a segment scaled by the frame's pixels. A still's regions
 * are a few MB.
 */
export function finishingStorageMb(input: PlanInput, model: Pick<ChunkModel, 'segmentMbPerFrame'> = MEASURED_CHUNK_MODEL): number {
  if (input.isStill) return 0;
  return 2 * input.totalFrames * model.segmentMbPerFrame * ((input.resolutionX * input.resolutionY) / (1920 * 1080));
}

/** Whether an animation's finishing step fits the function's /tmp (SnapStart allows 512 MB at most): a longer video goes to Batch. */
export function finishingFitsFunction(input: PlanInput, functionStorageMb: number | undefined): boolean {
  return functionStorageMb === undefined || finishingStorageMb(input) <= functionStorageMb * FINISHING_STORAGE_SHARE;
}

/**
 * Where a job renders on AWS and its chunks: the function unless a chunk of one frame would
 * not end safely inside its limit. A bench passes its own measured model and frame cost.
 */
export function planForFastPath(input: PlanInput, concurrency = DEFAULT_FAST_PATH_CONCURRENCY, model: ChunkModel = MEASURED_CHUNK_MODEL, frameCpuSeconds?: number): FastPathPlan {
  const time = planningChunkTime(input, model, frameCpuSeconds);
  if (time.fixedSeconds + time.perFrameSeconds > SAFE_CHUNK_SECONDS) {
    const chunks = planChunks(input);
    const frameSeconds = estimateFrameSeconds(input);
    return { engine: 'batch', chunks, frameSeconds, chunkSeconds: Math.max(...chunks.map((chunk) => framesOf(chunk).length)) * frameSeconds };
  }
  const chunks = planChunks(input, fastPathSettings(input, concurrency, model, frameCpuSeconds));
  // A still's regions each render a share of its one frame; an animation's chunks, their frames.
  const longest = input.isStill ? 1 / chunks.length : Math.max(...chunks.map((chunk) => framesOf(chunk).length));
  // frameSeconds stays the manifest's estimate spread over the vCPUs (what `npm run costs` prices); the chunk's time is the model's.
  return { engine: 'function', chunks, frameSeconds: estimateFrameSeconds({ ...input, cores: RENDER_FUNCTION.vcpus }), chunkSeconds: time.fixedSeconds + longest * time.perFrameSeconds };
}

/** The back-off step under way `elapsed` seconds after a throttled event's first attempt (THROTTLE_BACKOFF: 1, 2, 4 ... 300 s). */
export function backoffStepAt(elapsed: number): number {
  let step: number = THROTTLE_BACKOFF.firstSeconds;
  for (let next = step; next <= elapsed; next += step) step = Math.min(2 * step, THROTTLE_BACKOFF.maxSeconds);
  return step;
}

/** A job's delivery on the function, queued to stored: each step on its path, seconds. */
export interface DeliverySteps {
  /** The launcher's asynchronous Invoke reaching the handler. */
  dispatch: number;
  /** Environments past Lambda's first 1,000 waiting for its next allotment. */
  scaling: number;
  coldStart: number;
  pageIn: number;
  /** The waves ahead of the job's last chunk (chunks beyond the concurrency wait for a slot), with the throttled retries' waits. */
  queue: number;
  /** The job's slowest chunk, step by step: */
  input: number;
  credentials: number;
  versionProbes: number;
  blenderStart: number;
  render: number;
  encode: number;
  store: number;
  taskServer: number;
  /** The slowest chunk's render beyond the modelled one's (an animation's frames of uneven cost). */
  straggler: number;
  /** A split still's or an animation's finishing step (FinishingSteps); 0 for a still in one chunk. */
  finishing: number;
}

/** The finishing step, on the warm environment of the last chunk to finish (it claims the step on its own invocation). */
export interface FinishingSteps {
  /** The segments' or regions' downloads, SEGMENT_DOWNLOADS_AT_ONCE at a time, as the chunks' records name them. */
  download: number;
  /** The job's upload again: a sound scene's audio is muxed (a split still's join reads no upload). */
  input: number;
  /** An animation's segments, or a split still's rows, joined. */
  join: number;
  /** The image, or the video and its thumbnail. */
  store: number;
  taskServer: number;
  other: number;
}

export interface DeliveryEstimate {
  steps: DeliverySteps;
  finishing: FinishingSteps;
  chunks: number;
  /** Waves of the concurrency up to the job's last chunk (other jobs' chunks ahead included). */
  waves: number;
  /** The modelled chunk (a split still: its slowest region), straggler aside. */
  chunkSeconds: number;
  totalSeconds: number;
  /** Function seconds billed for the job's chunks, page-ins and finishing step; Init is counted apart (scripts/costs.ts). */
  billedSeconds: number;
  /** Of those, the frames' own rendering (a split still: its regions' rows, margins twice) and the straggler's: the rest (starts, encodes, stores, records, finishing) is overhead. */
  renderSeconds: number;
}

export type DeliveryBands = Record<DeliveryBand, DeliveryEstimate>;

export interface DeliveryOptions {
  /** The function's processor (default: the deploy default). */
  architecture?: 'x86_64' | 'arm64';
  /** Chunks of other jobs sent to the function just before this job's, taking slots first (taken to be chunks like this job's). */
  chunksAhead?: number;
}

/**
 * When a job on the fast path is delivered, in three bands (DELIVERY_ASSUMPTIONS), each step named: the plan is
 * the planner's (planForFastPath); its chunks start after a dispatch and a cold start with a page-in, in waves of
 * the concurrency (a chunk beyond it waits for a slot and its next retry); the slowest chunk of the last wave sets
 * when the finishing step starts. model and frameCpuSeconds: what bench:delivery measured (default the stored ones).
 */
export function deliveryBands(input: PlanInput, concurrency = DEFAULT_FAST_PATH_CONCURRENCY, model: DeliveryModel = MEASURED_DELIVERY_MODEL, frameCpuSeconds = estimateFrameSeconds({ ...input, cores: 1 }), options: DeliveryOptions = {}): DeliveryBands {
  const plan = planForFastPath(input, concurrency, model, frameCpuSeconds);
  const band = (name: DeliveryBand) => deliveryIn(assumptionsOf(name, input.sceneId), input, plan.chunks, concurrency, model, frameCpuSeconds, options);
  return { best: band('best'), typical: band('typical'), pessimistic: band('pessimistic') };
}

function deliveryIn(a: DeliveryAssumptions, input: PlanInput, plan: ChunkRange[], concurrency: number, measured: DeliveryModel, frameCpu: number, options: DeliveryOptions): DeliveryEstimate {
  const cpu = bandCpu(a, measured, options.architecture ?? DEFAULT_RENDER_FUNCTION_ARCHITECTURE);
  const model: DeliveryModel = { ...measured, s3RequestSeconds: a.s3RequestSeconds, s3MegabytesPerSecond: a.s3MegabytesPerSecond, recordSeconds: a.recordSeconds };
  const time = functionChunkTime(input, model, frameCpu, cpu);
  const chunks = plan.length;
  const split = input.isStill && chunks > 1;
  const framesPerChunk = Math.max(...plan.map((chunk) => framesOf(chunk).length));
  // A region renders and denoises its rows and its margins and saves its rows final: the frame's measured cost (which
  // holds a denoise and a save of the frame) for the rows it renders; its store is its share of the still's PNG.
  const frameWork = Math.max(0, frameCpu - model.serialSeconds) / cpu.parallelCores;
  const renderedRows = plan.map((_, index) => (split ? regionRenderedRows(input.resolutionY, index, chunks) : input.resolutionY));
  const regionWork = (frameWork * Math.max(...renderedRows)) / input.resolutionY;
  const regionMb = model.frameMb / chunks;
  const rendering = split
    ? { blenderStart: model.regionFixedSeconds / cpu.speed, render: regionWork * model.regionImbalance, encode: 0, store: transferSeconds(regionMb, model), taskServer: model.recordSeconds }
    : {
        blenderStart: time.once.blenderStart,
        render: framesPerChunk * time.perFrame.render,
        encode: framesPerChunk * time.perFrame.encode,
        store: time.once.store + framesPerChunk * time.perFrame.store,
        taskServer: time.once.taskServer,
      };
  // The credentials are asked for as the invocation starts (askWorkerCredentialsAhead), while the chunk is claimed and
  // Blender's version asked: the first request that needs them waits only for what is left, the input's download, or
  // for a scene without input the first upload, after its render.
  const claim = model.recordSeconds / CHUNK_TASK_QUESTIONS;
  const coveredBy = claim + a.versionProbeSeconds + (time.once.input > 0 ? 0 : rendering.blenderStart + rendering.render);
  const chunk = { input: time.once.input, credentials: Math.max(0, a.credentialsSeconds - coveredBy), versionProbes: a.versionProbeSeconds, ...rendering };
  const chunkSeconds = sum(chunk);

  const ahead = options.chunksAhead ?? 0;
  const scaling = Math.floor((Math.min(concurrency, ahead + chunks) - 1) / ENVIRONMENTS_PER_10_SECONDS) * 10;
  const waves = Math.floor((ahead + chunks - 1) / concurrency) + 1;
  // Each later wave starts warm as the wave before it ends, once the throttled chunk's next retry comes.
  let elapsed = scaling + a.coldStartSeconds + a.pageInSeconds;
  let queue = 0;
  for (let wave = 1; wave < waves; wave += 1) {
    const wait = a.throttleRetryShare * backoffStepAt(elapsed + chunkSeconds);
    elapsed += chunkSeconds + wait;
    queue += chunkSeconds + wait;
  }

  const finishing: FinishingSteps = { download: 0, input: 0, join: 0, store: 0, taskServer: 0, other: 0 };
  // The finishing step asks two questions (its start, answered with the chunks' records, and the job's completion) of the chunk's four.
  const finishingQuestions = (model.recordSeconds * FINISHING_TASK_QUESTIONS) / CHUNK_TASK_QUESTIONS;
  if (split) {
    Object.assign(finishing, {
      download: Math.ceil(chunks / SEGMENT_DOWNLOADS_AT_ONCE) * transferSeconds(regionMb, model),
      join: model.regionJoinSeconds / cpu.speed,
      store: transferSeconds(model.frameMb, model),
      taskServer: finishingQuestions,
      other: a.finishingExtraSeconds,
    });
  } else if (!input.isStill) {
    Object.assign(finishing, {
      download: Math.ceil(chunks / SEGMENT_DOWNLOADS_AT_ONCE) * transferSeconds(model.segmentMbPerFrame * framesPerChunk, model),
      input: getScene(input.sceneId)?.type === 'sound' ? time.once.input : 0,
      join: (model.joinSecondsPer120Frames * (input.totalFrames / 120)) / cpu.speed,
      store: transferSeconds((input.totalFrames / FPS) * model.videoMbPerSecond, model) + model.s3RequestSeconds,
      taskServer: finishingQuestions,
      other: a.finishingExtraSeconds,
    });
  }

  // An animation's slowest chunk renders the frames that cost most (a still renders the frame its cost measures).
  const straggler = input.isStill ? 0 : chunk.render * a.stragglerShare;
  const steps: DeliverySteps = { dispatch: a.dispatchSeconds, scaling, coldStart: a.coldStartSeconds, pageIn: a.pageInSeconds, queue, ...chunk, straggler, finishing: sum(finishing) };
  // Billed: every chunk's once-per-chunk part and the job's frames (a split still: its regions' rows, margins twice), the straggler, each new environment's page-in and the finishing step.
  const perChunk = split ? chunkSeconds - chunk.render : chunkSeconds - framesPerChunk * time.perFrameSeconds;
  const work = split ? (frameWork * renderedRows.reduce((total, rows) => total + rows, 0)) / input.resolutionY : input.totalFrames * time.perFrameSeconds;
  const billedSeconds = chunks * perChunk + work + steps.straggler + Math.min(concurrency, chunks) * a.pageInSeconds + steps.finishing;
  return { steps, finishing, chunks, waves, chunkSeconds, totalSeconds: sum(steps), billedSeconds, renderSeconds: (split ? work : input.totalFrames * time.perFrame.render) + steps.straggler };
}

// ---------------------------------------------------------------- the promise, learnt from production

/**
 * The steps of a chunk that production measures (the worker's figures, sent with the chunk's completion and kept per
 * scene by core/analytics/step-figures.ts), each in seconds, and the render against the model: the chunk's render
 * seconds over what the typical band gives the same frames (modelledChunkRenderSeconds), so a test still and a Full-HD
 * region of one scene measure the same speed.
 */
export const MEASURED_CHUNK_STEPS = ['claim', 'setup', 'input', 'build', 'store'] as const;
export type MeasuredChunkStep = (typeof MEASURED_CHUNK_STEPS)[number];

/** A figure's median and 90th percentile over the window. */
export interface Percentiles {
  p50: number;
  p90: number;
}

/** A scene's chunks measured in production over the last days (the recalibration rollup's item). */
export interface SceneStepFigures {
  sceneId: number;
  /** Chunks measured in the window. */
  chunks: number;
  /** Seconds per step. */
  steps: Record<MeasuredChunkStep, Percentiles>;
  /** The render step against the model's (1: as modelled). */
  renderAgainstModel: Percentiles;
}

/** A scene's promise follows production once this many of its chunks were measured (in the rollup's window); the bench's figures until then. */
export const CALIBRATION_MIN_CHUNKS = 50;

/**
 * Which step of the model's slowest chunk each measured step stands for. The claim holds the claim's question to the
 * task server and what the credentials asked beside it leave; setup is Blender found and the tools checked (the
 * version probe); build is Blender's start and the scene's build. The segment's encode and upload and the chunk's
 * last questions happen after the figures are sent, so they stay the model's.
 */
const MODEL_STEP_OF: Record<MeasuredChunkStep, keyof DeliverySteps> = { claim: 'credentials', setup: 'versionProbes', input: 'input', build: 'blenderStart', store: 'store' };

/**
 * The model's render step for `frames` of a job's chunk (a still: its one chunk, or one of its regions), in the
 * promised band: what a measured chunk's render is set against. The job's own plan on the function
 * (planForFastPath), so a region's share and an animation chunk's frames are counted as the promise counts them.
 */
export function modelledChunkRenderSeconds(input: PlanInput, frames: number, concurrency = DEFAULT_FAST_PATH_CONCURRENCY): number {
  const render = deliveryBands(input, concurrency)[PROMISED_BAND].steps.render;
  if (input.isStill) return render;
  const longest = Math.max(...planForFastPath(input, concurrency).chunks.map((chunk) => framesOf(chunk).length));
  return (render / longest) * frames;
}

/**
 * The promise's steps: the bench's (the promised band of the delivery model) until production measured enough of the
 * scene's chunks, then each measured step's median in place of the step it stands for, and the render (with the
 * straggler on it) scaled by the median of the measured renders against the model's. What no chunk measures (dispatch,
 * cold start, page-in, waiting for a slot, the segment's encode, the finishing step) stays the model's.
 */
export function promisedDelivery(bench: DeliveryEstimate, measured: SceneStepFigures | null | undefined, stragglerShare: number): { steps: DeliverySteps; totalSeconds: number; basis: 'production' | 'bench' } {
  if (!measured || measured.chunks < CALIBRATION_MIN_CHUNKS) return { steps: bench.steps, totalSeconds: bench.totalSeconds, basis: 'bench' };
  const steps = { ...bench.steps };
  for (const step of MEASURED_CHUNK_STEPS) steps[MODEL_STEP_OF[step]] = measured.steps[step].p50;
  // The claim step holds one of the chunk's questions to the task server.
  steps.taskServer = (bench.steps.taskServer * (CHUNK_TASK_QUESTIONS - 1)) / CHUNK_TASK_QUESTIONS;
  steps.render = bench.steps.render * measured.renderAgainstModel.p50;
  steps.straggler = steps.render * stragglerShare;
  return { steps, totalSeconds: sum(steps), basis: 'production' };
}

/**
 * When a render on the fast path should be ready: the promised band (PROMISED_BAND, the typical one) of the delivery
 * model (deliveryBands), learnt from production once the scene has enough measured chunks (promisedDelivery), rounded
 * up. What a job is promised (promisedSeconds, with the scene's stored figures), and what the customise page shows
 * beside the estimated render time (the pricing input), with the same figures and concurrency read from
 * GET /api/scenes/{sceneId}/delivery, the bench's until they arrive.
 */
export function readyInSeconds(input: PlanInput, concurrency = DEFAULT_FAST_PATH_CONCURRENCY, measured?: SceneStepFigures | null): number {
  const bench = deliveryBands(input, concurrency)[PROMISED_BAND];
  return Math.ceil(promisedDelivery(bench, measured, input.isStill ? 0 : assumptionsOf(PROMISED_BAND, input.sceneId).stragglerShare).totalSeconds);
}

/** "about 40 s", "about 3 min". */
export function formatReadyIn(seconds: number): string {
  return seconds < 90 ? `about ${Math.max(5, Math.round(seconds / 5) * 5)} s` : `about ${Math.round(seconds / 60)} min`;
}
