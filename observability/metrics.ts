/**
 * Every business metric of the service, named once. Each is written as one line in
 * CloudWatch's embedded metric format (Powertools' Metrics): on Lambda, CloudWatch
 * turns the line into a metric with no API call and no permission. The render farm's
 * containers log through the awslogs driver, which does not mark lines as EMF: the
 * stack turns the worker's lines into the same metrics with metric filters
 * (infra/constructs/monitoring.ts, `WORKER_METRICS`).
 *
 * Each line also carries the scope's request id and job id as metadata (not
 * dimensions), so a Logs Insights query finds the job behind a data point.
 * Metrics are off under POWERTOOLS_DEV (a terminal running `npm run dev`).
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { currentLogScope, SERVICE_NAME } from './logger';

/** The namespace when the stack sets none (POWERTOOLS_METRICS_NAMESPACE, per stage). */
export const DEFAULT_NAMESPACE = 'CloudRender';

/** Metric names: the dashboard, the alarms and the operator's page use these. */
export const METRIC = {
  rendersQueued: 'RendersQueued',
  rendersStarted: 'RendersStarted',
  rendersDone: 'RendersDone',
  rendersFailed: 'RendersFailed',
  paymentToResult: 'PaymentToResultSeconds',
  chunkRetries: 'ChunkRetries',
  refunds: 'Refunds',
  creditBacks: 'CreditBacks',
  chargebacks: 'Chargebacks',
  webhookDeliveriesFailed: 'WebhookDeliveriesFailed',
  testRendersRefused: 'TestRendersRefused',
  dependencyUnavailable: 'DependencyUnavailable',
  chunkStep: 'ChunkStepMilliseconds',
} as const;

export type MetricName = (typeof METRIC)[keyof typeof METRIC];

/**
 * A render chunk's steps, in order (render/chunk-runner.ts): the job read, its credentials and the claim; Blender found
 * and the tools' access checked; the input downloaded and checked; Blender's start and the scene's build, up to its
 * first sample; the render (frames stored as they come); the rest of the frames stored; the still, region or segment
 * stored and the chunk recorded.
 */
export const CHUNK_STEPS = ['claim', 'setup', 'input', 'build', 'render', 'store', 'finish'] as const;
export type ChunkStep = (typeof CHUNK_STEPS)[number];

/** Who a failed render is down to: `internal` (ours, refunded) or `input` (the user's upload). */
export type FailureCause = 'internal' | 'input';
/** A still or an animation: they differ by orders of magnitude in time. */
export type RenderMode = 'still' | 'animation';

let base: Metrics | undefined;
function metrics(): Metrics {
  base ??= new Metrics({ namespace: process.env.POWERTOOLS_METRICS_NAMESPACE ?? DEFAULT_NAMESPACE, serviceName: SERVICE_NAME });
  return base;
}

/**
 * One data point, flushed at once as its own line: every point is published under the
 * `service` dimension alone (the totals the alarms read) and, when `by` is given,
 * also under `service` plus those dimensions (the breakdowns).
 */
function emit(name: MetricName, unit: (typeof MetricUnit)[keyof typeof MetricUnit], value: number, by?: Record<string, string>): void {
  const point = metrics().singleMetric();
  if (by) point.addDimensions({}).addDimensions(by);
  const { requestId, jobId } = currentLogScope();
  if (requestId) point.addMetadata('requestId', requestId);
  if (jobId) point.addMetadata('jobId', jobId);
  point.addMetric(name, unit, value);
}

export const businessMetrics = {
  /** A render entered the queue: paid (credits or card) or a free test. */
  renderQueued: (sceneId: string | number, mode: RenderMode) => emit(METRIC.rendersQueued, MetricUnit.Count, 1, { scene: String(sceneId), mode }),
  /** A worker began the job's first chunk. */
  renderStarted: (sceneId: string | number, mode: RenderMode) => emit(METRIC.rendersStarted, MetricUnit.Count, 1, { scene: String(sceneId), mode }),
  renderDone: (sceneId: string | number, mode: RenderMode) => emit(METRIC.rendersDone, MetricUnit.Count, 1, { scene: String(sceneId), mode }),
  renderFailed: (cause: FailureCause) => emit(METRIC.rendersFailed, MetricUnit.Count, 1, { cause }),
  /** From the payment (or the credits' debit) to the finished result: what the customer waits. */
  paymentToResult: (seconds: number, sceneId: string | number, mode: RenderMode) => emit(METRIC.paymentToResult, MetricUnit.Seconds, seconds, { scene: String(sceneId), mode }),
  /** A chunk's attempt failed on our side and the chunk goes back for another attempt. */
  chunkRetried: () => emit(METRIC.chunkRetries, MetricUnit.Count, 1),
  /** Credits given back for a paid render that failed on our side. */
  refunded: (credits: number) => emit(METRIC.refunds, MetricUnit.Count, credits),
  /** A card payment kept as credits because its job was gone or abandoned before the money arrived. */
  creditedBack: (credits: number) => emit(METRIC.creditBacks, MetricUnit.Count, credits),
  chargeback: () => emit(METRIC.chargebacks, MetricUnit.Count, 1),
  webhookDeliveryFailed: () => emit(METRIC.webhookDeliveriesFailed, MetricUnit.Count, 1),
  testRenderRefused: () => emit(METRIC.testRendersRefused, MetricUnit.Count, 1),
  /** A request answered 503 because a dependency (the table, storage, identity, mail...) was down. */
  dependencyUnavailable: (dependency: string) => emit(METRIC.dependencyUnavailable, MetricUnit.Count, 1, { dependency }),
  /** One step of a render chunk (render/chunk-runner.ts's CHUNK_STEPS), its wall time: the dashboard's p50 and p95 per step. */
  chunkStep: (step: ChunkStep, milliseconds: number) => emit(METRIC.chunkStep, MetricUnit.Milliseconds, milliseconds, { step }),
};
