/**
 * The render policy: how long a render's parts may take, what a free test render may be, what the customer is
 * promised and how a finished render is held to it. The planner sizes chunks by it (shared/render-plan.ts,
 * shared/fast-path.ts), the worker stops a run past its limit, the price plans a test render by it
 * (shared/pricing.ts), the promise reads its band (readyInSeconds), and the server, the job card and the report judge
 * accuracy by it.
 *
 * Two times on purpose: the price keeps the seed's formula, so its minutes (estimatedRenderTimeMinutes) are the
 * price's; the promise and the accuracy check use the measured model (the delivery model of shared/fast-path.ts on
 * the frame costs of shared/render-manifest.ts).
 */
import { FPS, MAX_MEDIA_DURATION_SECONDS } from './frames';

// ---------------------------------------------------------------- chunks

/**
 * On a farm that pays a start per chunk (AWS Batch, the local pool): a chunk should render in about this long (a
 * minute or two keeps lost work small and the start amortised)...
 */
export const FARM_CHUNK_SECONDS = 90;
/** ...and no job is split into more chunks than this (one Batch array child per chunk). */
export const FARM_MAX_CHUNKS = 100;

/** On the render function (the fast path), a chunk is planned to end well inside its limit: estimates err, and a shared host runs slower. */
export const SAFE_CHUNK_SECONDS = 10 * 60;
/** A job's chunks on the fast path at most: the longest media in one-frame chunks. */
export const FAST_PATH_MAX_CHUNKS = MAX_MEDIA_DURATION_SECONDS * FPS;
/** No still is split into more regions than this: each adds a Blender start and a download to the finishing step. */
export const MAX_STILL_REGIONS = 16;

/** A chunk may run this many times its estimate before Blender is stopped... */
export const RENDER_LIMIT_FACTOR = 4;
/** ...but never less than this: start-up and a slow, shared machine must not fail a small render. */
export const RENDER_LIMIT_FLOOR_SECONDS = 10 * 60;

// ---------------------------------------------------------------- free test renders

/** A free test render renders at most this much of an animation: enough to judge the look, cheap to us. */
export const TEST_RENDER_MAX_SECONDS = 3;
export const TEST_RENDER_MAX_FRAMES = TEST_RENDER_MAX_SECONDS * FPS;
/**
 * A free test render's longer side: a larger test render is scaled down to it (even
 * sides, which H.264 needs). The worker renders at renderedResolution's answer, and the
 * pages say the same numbers.
 */
export const TEST_RENDER_MAX_SIDE = 480;

export function renderedResolution(job: { resolution_x: number; resolution_y: number; isTest: boolean }): { x: number; y: number } {
  const { resolution_x: x, resolution_y: y } = job;
  if (!job.isTest || Math.max(x, y) <= TEST_RENDER_MAX_SIDE) return { x, y };
  const factor = TEST_RENDER_MAX_SIDE / Math.max(x, y);
  const even = (side: number) => Math.max(16, Math.round((side * factor) / 2) * 2);
  return { x: even(x), y: even(y) };
}

// ---------------------------------------------------------------- the promise and its accuracy

/** The delivery band (shared/fast-path.ts, deliveryBands) a customer is promised: "ready in about N s". */
export const PROMISED_BAND = 'typical';

export type TimeAccuracyReportType = 'UNDERESTIMATED' | 'OVERESTIMATED';

export const TIME_ACCURACY = {
  REPORT_BELOW: 0.8,
  REPORT_ABOVE: 1.2,
  RED_ABOVE: 1.25,
  YELLOW_BELOW: 0.75,
} as const;

/** actual / expected (in the same unit); null when either is missing, not positive or not finite. */
export function timeAccuracyRatio(actual: number, expected: number): number | null {
  if (!(actual > 0) || !(expected > 0)) return null;
  const ratio = actual / expected;
  return Number.isFinite(ratio) ? ratio : null;
}

/** Reports go out only when the ratio is outside 0.8..1.2 (both bounds count as accurate). */
export function shouldSendTimeAccuracyReport(ratio: number): boolean {
  return ratio < TIME_ACCURACY.REPORT_BELOW || ratio > TIME_ACCURACY.REPORT_ABOVE;
}

/** Under 0.8 is 'UNDERESTIMATED', everything else 'OVERESTIMATED' (the report types' fixed names). */
export function timeAccuracyReportType(ratio: number): TimeAccuracyReportType {
  return ratio < TIME_ACCURACY.REPORT_BELOW ? 'UNDERESTIMATED' : 'OVERESTIMATED';
}

export function timeAccuracyColor(ratio: number): 'red' | 'yellow' | 'green' {
  if (ratio > TIME_ACCURACY.RED_ABOVE) return 'red';
  if (ratio < TIME_ACCURACY.YELLOW_BELOW) return 'yellow';
  return 'green';
}

/** The fields of a job its time accuracy is measured from (ISO-8601 timestamps). */
export interface TimedRender {
  created_at: string;
  startTime?: string;
  paymentTimestamp?: string;
  /** Seconds the customer was promised (readyInSeconds, kept on the server); a resumed job has none. */
  promisedSeconds?: number;
  /** The price's render minutes (shared/pricing.ts). */
  estimatedRenderTimeMinutes: number;
}

/**
 * A render finished at `now`: its minutes from its start, and its accuracy ratio. With a promise, the customer's
 * wait from payment against it; a job promised nothing (a resume) is measured by its render minutes against the
 * estimate.
 */
export function renderTimeAccuracy(job: TimedRender, now: number): { actualMinutes: number; ratio: number | null } {
  const actualMinutes = Math.max(0, (now - Date.parse(job.startTime ?? job.created_at)) / 60_000);
  if (!job.promisedSeconds) return { actualMinutes, ratio: timeAccuracyRatio(actualMinutes, job.estimatedRenderTimeMinutes) };
  const waitedSeconds = (now - Date.parse(job.paymentTimestamp ?? job.created_at)) / 1000;
  return { actualMinutes, ratio: timeAccuracyRatio(waitedSeconds, job.promisedSeconds) };
}
