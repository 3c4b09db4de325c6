/**
 * What production measures of its deliveries, and the recalibration that turns it into the promise's figures.
 *
 * Every chunk the render function (or the local pool) finishes adds its steps (the worker's figures, sent with the
 * chunk's completion) to its scene's item of the day, and every finished render with a promise adds what it was
 * promised and what its customer waited. The item holds counts per bucket, not the figures themselves: a bucket is a
 * value's upper bound on a scale that grows by BUCKET_GROWTH, so a day of any number of chunks is one item of bounded
 * size, and a percentile read from it errs slow by less than a bucket's width (a promise may err late, not early).
 *
 * The recalibration (daily, in the analytics rollup's function, lambdas/scheduled/analytics-rollup.ts, and on the
 * local stack's timer) merges each catalogue scene's last RECALIBRATION_WINDOW_DAYS days into one item per scene: each
 * step's p50 and p90, the render against the model's, and promised against actual. The promise reads that item
 * (sceneStepFigures) and follows it once the scene has CALIBRATION_MIN_CHUNKS measured chunks (shared/fast-path.ts,
 * promisedDelivery).
 */
import { scenes } from '#shared/catalogue';
import { MEASURED_CHUNK_STEPS, modelledChunkRenderSeconds, type Percentiles, type SceneStepFigures } from '#shared/fast-path';
import { planInputOf, type JobCostFields } from '#shared/render-plan';
import type { SceneDeliveryRow } from '#shared/analytics-api';
import { log } from '#observability/logger';
import { getConfig } from '../config';
import { getItem, putItem, queryPages, updateItem } from '../db/items';
import { keys } from '../db/keys';
import { dayOf, expiresAtFor } from './counters';

/** The fields of a job its figures are read from (a job's record has them), named here: the jobs' modules record into analytics, never the other way. */
interface MeasuredJob extends JobCostFields {
  jobId: string;
  total_frames: number;
  isStillRender: boolean;
  farmEngine?: string;
  promisedSeconds?: number;
}

/** The days the recalibration reads, ending with its own. */
export const RECALIBRATION_WINDOW_DAYS = 7;
/** A day's item outlives the window by a day (TTL), so a late run still finds its first day. */
const DAY_ITEM_DAYS = RECALIBRATION_WINDOW_DAYS + 1;
/** The smallest bucket's bound (seconds, or a ratio) and each next bucket's growth: 5 % wide. */
const BUCKET_FLOOR = 0.01;
const BUCKET_GROWTH = 1.05;

const DAY_MS = 86_400_000;

/** The bucket a value falls in: the first whose bound is at least the value. */
export const bucketOf = (value: number): number => (value <= BUCKET_FLOOR ? 0 : Math.ceil(Math.log(value / BUCKET_FLOOR) / Math.log(BUCKET_GROWTH) - 1e-9));
/** A bucket's bound, rounded to what a person reads. */
export const boundOf = (bucket: number): number => Number((BUCKET_FLOOR * BUCKET_GROWTH ** bucket).toPrecision(4));

/** The value under which a share q of the counts lies (the bound of the bucket that reaches it); 0 when there are none. */
export function percentileOf(counts: ReadonlyMap<number, number>, q: number): number {
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  if (total === 0) return 0;
  let seen = 0;
  for (const bucket of [...counts.keys()].sort((a, b) => a - b)) {
    seen += counts.get(bucket)!;
    if (seen >= q * total) return boundOf(bucket);
  }
  return boundOf(Math.max(...counts.keys()));
}

const percentiles = (counts: ReadonlyMap<number, number>): Percentiles => ({ p50: percentileOf(counts, 0.5), p90: percentileOf(counts, 0.9) });

/** The measured figures a day's item counts, each under its own attribute prefix. */
const RENDER_FIGURE = 'renderAgainstModel';
type Figure = (typeof MEASURED_CHUNK_STEPS)[number] | typeof RENDER_FIGURE | 'promised' | 'actual';
const attributeOf = (figure: Figure, value: number) => `${figure}:${bucketOf(value)}`;

/** Adds one to each named count of the scene's item of the day, and to each bucket. */
async function addToDay(sceneId: number, at: Date, counts: string[], buckets: string[]): Promise<void> {
  const names = [...counts, ...buckets];
  const dayStart = new Date(`${dayOf(at)}T00:00:00.000Z`);
  await updateItem({
    Key: keys.deliveryFiguresOfDay(sceneId, dayOf(at)),
    UpdateExpression: `SET sceneId = :scene, #date = :date, entity = :entity, expiresAt = if_not_exists(expiresAt, :expires) ADD ${names.map((_, i) => `#n${i} :one`).join(', ')}`,
    ExpressionAttributeNames: { '#date': 'date', ...Object.fromEntries(names.map((name, i) => [`#n${i}`, name])) },
    ExpressionAttributeValues: {
      ':scene': sceneId,
      ':date': dayOf(at),
      ':entity': 'deliveryFigures',
      ':expires': Math.floor((dayStart.getTime() + DAY_ITEM_DAYS * DAY_MS) / 1000),
      ':one': 1,
    },
  });
}

/**
 * A finished chunk's steps (the worker's wall times, milliseconds), kept on its scene's day. A chunk that rendered
 * nothing (its frames were stored by an earlier attempt) measured no render and is left out; so is a chunk of a job on
 * AWS Batch, whose machines the promise (the render function's) does not describe. Steps the chunk skipped (a warm
 * scene has no build of its own) took no time. Best effort: a failed write costs a figure, never the chunk.
 */
export async function recordChunkSteps(job: MeasuredJob, frames: number, stepsMs: Readonly<Record<string, number>>, now = new Date()): Promise<void> {
  if (job.farmEngine === 'batch' || stepsMs.render === undefined || frames < 1) return;
  try {
    const modelled = modelledChunkRenderSeconds(planInputOf(job), frames, getConfig().RENDER_FUNCTION_CONCURRENCY);
    const buckets = MEASURED_CHUNK_STEPS.map((step) => attributeOf(step, (stepsMs[step] ?? 0) / 1000));
    if (modelled > 0) buckets.push(attributeOf(RENDER_FIGURE, stepsMs.render / 1000 / modelled));
    await addToDay(job.sceneId, now, ['chunks'], buckets);
  } catch (error) {
    log.warn('A chunk\'s step figures could not be kept', { jobId: job.jobId, error });
  }
}

/**
 * A finished render's wait (from payment, or a free test's creation, to result, seconds) against its promise, kept on its scene's day for the
 * dashboard. A job promised nothing (a resume) is left out. Best effort, as above.
 */
export async function recordPromiseOutcome(job: MeasuredJob, waitedSeconds: number, now = new Date()): Promise<void> {
  if (!job.promisedSeconds || !Number.isFinite(waitedSeconds)) return;
  try {
    const counts = waitedSeconds <= job.promisedSeconds ? ['renders', 'onTime'] : ['renders'];
    await addToDay(job.sceneId, now, counts, [attributeOf('promised', job.promisedSeconds), attributeOf('actual', waitedSeconds)]);
  } catch (error) {
    log.warn('A render\'s promise outcome could not be kept', { jobId: job.jobId, error });
  }
}

/** A scene's recalibrated figures: the promise's (SceneStepFigures) and the dashboard's. */
export interface SceneDeliveryFigures extends SceneStepFigures {
  /** The window's first and last UTC day. */
  from: string;
  to: string;
  computed_at: string;
  /** Renders finished in the window with a promise, and those ready within it. */
  renders: number;
  onTime: number;
  promised: Percentiles | null;
  actual: Percentiles | null;
}

/** Merges the day items' counts into a histogram per figure. */
function mergeDays(items: readonly Record<string, unknown>[]) {
  const histograms = new Map<string, Map<number, number>>();
  const totals = { chunks: 0, renders: 0, onTime: 0 };
  for (const item of items) {
    for (const [name, value] of Object.entries(item)) {
      if (typeof value !== 'number') continue;
      if (name === 'chunks' || name === 'renders' || name === 'onTime') totals[name] += value;
      const [figure, bucket] = name.split(':');
      if (bucket === undefined || !/^\d+$/.test(bucket)) continue;
      const counts = histograms.get(figure) ?? new Map<number, number>();
      counts.set(Number(bucket), (counts.get(Number(bucket)) ?? 0) + value);
      histograms.set(figure, counts);
    }
  }
  const of = (figure: Figure) => histograms.get(figure) ?? new Map<number, number>();
  return { totals, of };
}

/** The scene's day items of the window: one Query on its partition. */
async function daysOfScene(sceneId: number, fromDay: string, toDay: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for await (const page of queryPages({
    KeyConditionExpression: 'PK = :pk AND SK BETWEEN :from AND :to',
    ExpressionAttributeValues: { ':pk': keys.deliveryFiguresPartition(sceneId), ':from': keys.deliveryFiguresSortKey(fromDay), ':to': keys.deliveryFiguresSortKey(toDay) },
  })) {
    items.push(...page);
  }
  return items;
}

/**
 * The recalibration: for every scene of the catalogue, its last RECALIBRATION_WINDOW_DAYS days (asOf's included)
 * merged into its one item, overwritten each run, so a scene whose chunks leave the window goes back to the bench's
 * figures. Reads at most 7 items a scene.
 */
export async function recalibrateDelivery(asOf = new Date()): Promise<SceneDeliveryFigures[]> {
  const to = dayOf(asOf);
  const from = dayOf(new Date(asOf.getTime() - (RECALIBRATION_WINDOW_DAYS - 1) * DAY_MS));
  const results: SceneDeliveryFigures[] = [];
  for (const scene of scenes) {
    const { totals, of } = mergeDays(await daysOfScene(scene.id, from, to));
    const figures: SceneDeliveryFigures = {
      sceneId: scene.id,
      chunks: totals.chunks,
      steps: Object.fromEntries(MEASURED_CHUNK_STEPS.map((step) => [step, percentiles(of(step))])) as SceneStepFigures['steps'],
      renderAgainstModel: percentiles(of(RENDER_FIGURE)),
      from,
      to,
      computed_at: asOf.toISOString(),
      renders: totals.renders,
      onTime: totals.onTime,
      promised: totals.renders > 0 ? percentiles(of('promised')) : null,
      actual: totals.renders > 0 ? percentiles(of('actual')) : null,
    };
    await putItem({ Item: { ...keys.sceneDeliveryFigures(scene.id), entity: 'sceneDeliveryFigures', ...figures, expiresAt: expiresAtFor(asOf) } });
    results.push(figures);
  }
  return results;
}

const figuresOf = (item: Record<string, unknown>): SceneDeliveryFigures => {
  const { PK: _pk, SK: _sk, entity: _entity, expiresAt: _expires, ...figures } = item;
  return figures as unknown as SceneDeliveryFigures;
};

/** The scene's recalibrated figures, or null before the first recalibration: what the server's promise reads. */
export async function sceneStepFigures(sceneId: number): Promise<SceneDeliveryFigures | null> {
  const item = await getItem(keys.sceneDeliveryFigures(sceneId));
  return item ? figuresOf(item) : null;
}

/** Every scene's promised against actual, and whether its promise follows production: the admin dashboard's table. */
export async function listSceneDeliveryRows(): Promise<SceneDeliveryRow[]> {
  const rows: SceneDeliveryRow[] = [];
  for await (const page of queryPages({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': keys.sceneDeliveryFiguresPartition } })) {
    for (const item of page) {
      const figures = figuresOf(item);
      const scene = scenes.find((candidate) => candidate.id === figures.sceneId);
      rows.push({
        scene_id: figures.sceneId,
        scene_name: scene?.title ?? 'Unknown',
        from: figures.from,
        to: figures.to,
        measured_chunks: figures.chunks,
        render_against_model: figures.chunks > 0 ? figures.renderAgainstModel : null,
        renders: figures.renders,
        on_time: figures.onTime,
        promised_seconds: figures.promised,
        actual_seconds: figures.actual,
      });
    }
  }
  return rows;
}
