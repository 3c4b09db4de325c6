/**
 * The render manifest: per scene, what its script renders with (the sampling of finals and free test renders, the
 * text limit, the styles) and what one of its frames costs. The worker passes what a scene script needs in its
 * args.json (render/blender.ts), so the Python scripts hold no policy of their own; chunk planning, the job's first
 * time estimate, the delivery simulation and `npm run costs` read the measured frame costs from here. The limits a
 * render is held to (chunk times, a test render's caps, the promise) are the render policy's (shared/render-policy.ts).
 *
 * The measured costs live in render-manifest.costs.json beside this file, written by
 * `npm run bench:frame-costs -- --write` (one Full-HD final frame per scene, denoised as
 * in production); they are a measurement, not a policy, so a tool rewrites them.
 */
import { scenes } from './catalogue';
import { TEST_RENDER_MAX_SIDE } from './render-policy';
import measuredCosts from './render-manifest.costs.json';

export interface FinalSampling {
  /** Adaptive sampling stops each pixel below the noise threshold, at the latest at maxSamples. */
  maxSamples: number;
  noiseThreshold: number;
  /**
   * The samples every pixel takes before adaptive sampling may stop it. Unset (0): Cycles' automatic figure,
   * ceil(16 / threshold^0.3), which at 0.05 is 39: past 32 samples, so no pixel stops early.
   */
  minSamples?: number;
}

export interface FrameCost {
  /** Wall seconds of one Full-HD (1920x1080) final frame, Blender start and denoising included. */
  seconds: number;
  /** CPU seconds of the same (Blender and the denoiser): the wall time of a shared machine also measures its neighbours. */
  cpuSeconds: number;
  /** The CPU cores it ran on. */
  cores: number;
  /** Samples Cycles actually used (adaptive: at most the maximum). */
  samples: number;
  /** Measured: how the animation's frames cost against this frame (`npm run bench:frame-costs -- --spread --write`). */
  spread?: FrameSpread;
}

/**
 * How an animation's frames cost against the still the frame cost measures, from several frames spread over the
 * animation: each ratio is a frame's render part (its CPU seconds less Blender's serial part) against the still's,
 * each rendered by a fresh Blender as a one-frame chunk renders it (production sampling, denoised), at `size`, smaller
 * than Full HD so the measurement takes minutes rather than an hour.
 */
export interface FrameSpread {
  /** The frames measured, first and last of the animation included. */
  frames: number[];
  /** Each frame's render part against the still's (the means of two passes and of three stills), in the order of `frames`. */
  ratios: number[];
  /** The size they were rendered at, e.g. '480x270'. */
  size: string;
  /** The day of the measurement (YYYY-MM-DD). */
  measuredOn: string;
}

export interface ScenePolicy {
  sceneId: number;
  /** Denoised finals (production). */
  final: FinalSampling;
  /** Finals rendered without the denoiser (denoise: false, benches only) need many samples to look clean. */
  undenoisedSamples: number;
  /** Free test renders: few samples, denoised, longer side capped, PREVIEW watermark. */
  test: { samples: number; maxSide: number };
  /** Characters of custom text a scene draws (the API refuses longer text). */
  textLimit: number;
  /** The background styles the scene's script draws (the catalogue's choices). */
  styleIds: readonly string[];
  /** Measured: what one Full-HD final frame costs (null until `npm run bench:frame-costs -- --write`). */
  frameCost: FrameCost | null;
}

/**
 * Tuned with `npm run bench:quality` (least time for a clean denoised frame): 32 samples
 * with a 0.05 threshold scored about 44 dB against a 512-sample reference in about half
 * the time of 96 undenoised samples (37.6 dB).
 */
const DENOISED_FINAL: FinalSampling = { maxSamples: 32, noiseThreshold: 0.05 };
/**
 * Scenes whose finals need less than DENOISED_FINAL for the same picture, each measured by `npm run bench:quality` against
 * its 1024-sample reference at 960 x 540 (the quality floor: DENOISED_FINAL's figure, kept within 0.5 dB).
 * Text Animation (29 November 2026, CPU seconds of one 960 x 540 still on a shared 2-core machine): DENOISED_FINAL
 * 44.05 dB in 45-50 CPU-s. Its threshold alone changed nothing from 0.05 to 0.2 (Cycles' automatic minimum is past 32
 * samples there); with 8 samples before a pixel may stop, threshold 0.1 gave 43.74 dB in 36-38 CPU-s (0.15: 43.53 dB, past
 * the floor); 24 samples at 0.05, 43.57 dB in 35-36 CPU-s; shorter light paths (4 bounces, 1 diffuse, 2 glossy) no
 * measurable time for 0.5 dB less.
 */
const FINAL_BY_SCENE: Readonly<Record<number, FinalSampling>> = { 1: { maxSamples: 32, noiseThreshold: 0.1, minSamples: 8 } };
/**
 * Test renders are for judging the result before paying, not for keeping (their size cap is the render policy's, which
 * the web's preview and the worker apply). Denoised by OIDN's fast weights, 1 sample scored 31.6 dB against a 512-sample
 * reference at 480 x 270 (Text Animation), 2 samples 33.9 dB, where 12 undenoised samples scored 26.9 dB in more time.
 * One sample, because a test still is awaited end to end (free test render <= 1.5 s): from a warm scene it took 0.66-0.77 s
 * against 0.88-1.02 s at 2 samples (5 each, 2 bands on 2 cores). The PREVIEW mark stays (test/render/warm-scene.test.ts).
 */
const TEST = { samples: 1, maxSide: TEST_RENDER_MAX_SIDE } as const;
/**
 * The customise page's live preview (POST /api/previews): a warm scene's forked children render it
 * on one core each (a forked Blender's thread pool does not follow it), so it is small and sampled
 * once, then denoised: in the same time as 3 samples undenoised, which were grain over every surface
 * (measured by `npm run bench:live-preview`); its PREVIEW mark sits in a corner.
 */
export const LIVE_PREVIEW = { maxSide: 320, samples: 1, denoise: true, deadlineMs: 4_000 } as const;
export const TEXT_LIMIT = 200;
const UNDENOISED_SAMPLES = 96;

const costs = measuredCosts as Record<string, FrameCost | undefined>;

export const RENDER_MANIFEST: Readonly<Record<number, ScenePolicy>> = Object.fromEntries(
  scenes.map((scene) => [
    scene.id,
    {
      sceneId: scene.id,
      final: FINAL_BY_SCENE[scene.id] ?? DENOISED_FINAL,
      undenoisedSamples: UNDENOISED_SAMPLES,
      test: TEST,
      textLimit: TEXT_LIMIT,
      styleIds: scene.optionsConfig.backgroundStyles?.map((style) => style.id) ?? [],
      frameCost: costs[String(scene.id)] ?? null,
    } satisfies ScenePolicy,
  ]),
);

/** The policy of a scene; an unknown id is a bug in the caller. */
export function scenePolicy(sceneId: number): ScenePolicy {
  const policy = RENDER_MANIFEST[sceneId];
  if (!policy) throw new RangeError(`no render policy for scene ${sceneId}`);
  return policy;
}

/** The sampling a render uses: what the scene script receives in args.json. */
export function samplingFor(sceneId: number, render: { isTest?: boolean; denoise: boolean }): { samples: number; noiseThreshold: number; minSamples: number } {
  const policy = scenePolicy(sceneId);
  if (render.isTest) return { samples: policy.test.samples, noiseThreshold: 0, minSamples: 0 };
  return render.denoise
    ? { samples: policy.final.maxSamples, noiseThreshold: policy.final.noiseThreshold, minSamples: policy.final.minSamples ?? 0 }
    : { samples: policy.undenoisedSamples, noiseThreshold: 0, minSamples: 0 };
}

/** Full HD, the resolution the frame costs are measured at. */
export const COST_RESOLUTION = { width: 1920, height: 1080 } as const;

/**
 * Cycles' time grows with pixels and with samples; a frame's fixed part (Blender's start,
 * the scene build, denoising a frame) is folded in the measurement, which errs on the
 * slow side for small frames. The measured CPU seconds spread over the cores (render
 * threads scale close to linearly: `npm run bench:delivery` measures by how much).
 * Used where nothing of the job has been rendered yet.
 */
export function estimateFrameSecondsFor(sceneId: number, render: { resolutionX: number; resolutionY: number; samples?: number; isTest?: boolean; cores?: number }): number {
  const policy = scenePolicy(sceneId);
  const cost = policy.frameCost ?? fallbackCost();
  // A test render's longer side is capped (render/blender.ts applies the same cap).
  const shrink = render.isTest ? Math.min(1, policy.test.maxSide / Math.max(render.resolutionX, render.resolutionY)) ** 2 : 1;
  const pixels = (render.resolutionX * render.resolutionY * shrink) / (COST_RESOLUTION.width * COST_RESOLUTION.height);
  const samples = render.samples ?? (render.isTest ? policy.test.samples : policy.final.maxSamples);
  const coreSeconds = cost.cpuSeconds * pixels * (samples / cost.samples);
  return Math.max(0.05, coreSeconds / (render.cores ?? cost.cores));
}

/**
 * The measured spread of a scene's animation frames; a scene not measured takes the widest measured (the largest
 * ratio), as a cost not measured takes the slowest; undefined while none is measured.
 */
export function frameSpreadOf(sceneId: number): { spread: FrameSpread; measured: boolean } | undefined {
  const own = scenePolicy(sceneId).frameCost?.spread;
  if (own) return { spread: own, measured: true };
  const known = Object.values(RENDER_MANIFEST).flatMap((policy) => (policy.frameCost?.spread ? [policy.frameCost.spread] : []));
  if (known.length === 0) return undefined;
  return { spread: known.reduce((widest, spread) => (Math.max(...spread.ratios) > Math.max(...widest.ratios) ? spread : widest)), measured: false };
}

/** A scene not measured yet takes the slowest measured scene's cost, so its chunks are never planned too large. */
function fallbackCost(): FrameCost {
  const known = Object.values(RENDER_MANIFEST).flatMap((policy) => (policy.frameCost ? [policy.frameCost] : []));
  if (known.length === 0) throw new Error('the render manifest has no measured frame cost: run `npm run bench:frame-costs -- --write`');
  return known.reduce((slowest, cost) => (cost.cpuSeconds > slowest.cpuSeconds ? cost : slowest));
}

/**
 * Rows a region of a split still renders and denoises beyond its own, above and below (render/scenes/protocol.py,
 * render_region), then leaves out: the denoiser's result at a pixel depends on its neighbourhood, and with this margin
 * a region's edge rows come out as the whole frame's denoise gives them, so no seam shows where two regions meet
 * (test/render/still-regions.test.ts measures it). Each margin row is rendered and denoised twice, by two regions.
 */
export const REGION_MARGIN_ROWS = 32;

/**
 * What the finishing step of a split still spends once it joins regions (render/region-stitch.ts, joinRegions: ffmpeg
 * stacks the regions' PNG rows and writes the still and its preview), and what each region adds. Measured here on
 * 29 November 2026: the join of a Full-HD still took 0.33-0.34 CPU-s of ffmpeg whether from 1, 2, 4, 8 or 16 strips,
 * so a region adds only its download, run 16 at once (SEGMENT_DOWNLOADS_AT_ONCE): a sixteenth of S3's 0.2-s request
 * latency (S3 user guide, optimizing performance). Besides the join, the step downloads the strips and uploads the
 * still (0.2 s each) and asks the task server twice (0.1 s each, assumed as the delivery model's typical band does).
 */
export const REGION_JOIN = { seconds: 0.34 + 0.2 + 0.2 + 2 * 0.1, perRegionSeconds: 0.2 / 16 } as const;
