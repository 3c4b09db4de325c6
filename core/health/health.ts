/**
 * The health report (GET /api/health, GET /api/admin/health): what each component answered, and what
 * anyone may see of it. The questions are the ports' (core/ports.ts, `healthProbes`); the core asks
 * them under its own deadline, keeps a healthy answer a few seconds and shares a question in flight,
 * so a report asked every second costs the components one question each per few seconds, and answers
 * in a moment. A failed answer is not kept: the next report asks again, so a recovery shows at once.
 */
import { ports, type HealthComponent, type HealthProbe, type HealthProbes } from '../ports';
import { classifyDependencyFailure, type FailureKind } from '../errors';
import { recordHealthSample } from '../analytics/metrics';

export interface ComponentStatus {
  ok: boolean;
  detail: string;
}

export type ComponentName = HealthComponent;

export interface HealthReport {
  ok: boolean;
  components: Record<ComponentName, ComponentStatus>;
}

/** What anyone may see: the overall state and each coarse component's, never a version, mode, host or setting. */
export interface PublicHealthReport {
  ok: boolean;
  status: 'ok' | 'degraded' | 'unavailable';
  components: Record<ComponentName, 'ok' | 'unavailable'>;
}

/**
 * The public answer of GET /api/health. The details (the payments mode, Blender's
 * version and path, bucket and pool names, a failure's kind) are for operators, at
 * GET /api/admin/health: told to anyone they map the stack for an attacker.
 * Unavailable when the database is down (nothing works without it), degraded when another part is.
 */
export function publicHealth(report: HealthReport): PublicHealthReport {
  const components = Object.fromEntries(Object.entries(report.components).map(([name, c]) => [name, c.ok ? 'ok' : 'unavailable'])) as PublicHealthReport['components'];
  const status = report.ok ? 'ok' : report.components.database.ok ? 'degraded' : 'unavailable';
  return { ok: report.ok, status, components };
}

/** Each probe's deadline. The probes run side by side. */
export const PROBE_TIMEOUT_MS = 1000;

/** The whole report's: the probes, then the uptime sample in what is left, so a report answers within 2 s even when a component hangs. */
export const REPORT_TIMEOUT_MS = 2000;

/** How long a healthy answer stands for the reports that follow; a failed one stands for none. */
export const HEALTHY_ANSWER_KEPT_MS = 5000;

/** The report's components, in the order it names them. */
const COMPONENTS: readonly ComponentName[] = ['database', 'identity', 'storage', 'mail', 'payments', 'renderer'];

/**
 * A failed probe's detail. The admin report describes a dependency failure by its kind (an SDK's
 * message names internal hosts and ports); only a missing setting's own message is shown as it is.
 */
function failureDetail(error: unknown): string {
  const failure = classifyDependencyFailure(error);
  if (failure) return FAILURE_DETAIL[failure.kind];
  if ((error as Error | undefined)?.name === 'AbortError' || (error as Error | undefined)?.name === 'TimeoutError') return FAILURE_DETAIL.timeout;
  return 'unavailable';
}

const FAILURE_DETAIL: Record<FailureKind, string> = {
  timeout: `unreachable: no answer within ${PROBE_TIMEOUT_MS / 1000} s`,
  unreachable: 'unreachable: connection refused or lost',
  throttled: 'throttled',
  conflict: 'busy',
  server_error: 'answered with a server error',
};

/**
 * Runs `work` with a signal that aborts at the deadline, and answers by then whatever `work` does:
 * a step that does not take the signal (a program's start, a file system call) is left behind, not
 * waited for.
 */
async function withinDeadline<T>(work: (signal: AbortSignal) => Promise<T>, ms: number): Promise<T> {
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const reason = new DOMException(`no answer within ${ms} ms`, 'TimeoutError');
      controller.abort(reason);
      reject(reason);
    }, ms);
  });
  try {
    return await Promise.race([Promise.resolve().then(() => work(controller.signal)), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** One probe, asked once under its deadline; never rejects. */
async function check(probe: HealthProbe): Promise<ComponentStatus> {
  try {
    const result = await withinDeadline(probe, PROBE_TIMEOUT_MS);
    return 'found' in result ? { ok: true, detail: result.found } : { ok: false, detail: result.misconfigured };
  } catch (error) {
    return { ok: false, detail: failureDetail(error) };
  }
}

/** A component's answer: in flight (no `healthyAt` yet), or healthy since `healthyAt`. A failed answer is dropped once known. */
interface Answer {
  status: Promise<ComponentStatus>;
  healthyAt?: number;
}

/** The recent answers of each set of probes (a new configuration's probes start with none). */
const recent = new WeakMap<HealthProbes, Map<ComponentName, Answer>>();

/** The component's answer: the one in flight or still fresh, else a new question (`asked`). */
function answerOf(probes: HealthProbes, name: ComponentName, now: number): { status: Promise<ComponentStatus>; asked: boolean } {
  let known = recent.get(probes);
  if (!known) recent.set(probes, (known = new Map()));
  const held = known.get(name);
  if (held && (held.healthyAt === undefined || now - held.healthyAt < HEALTHY_ANSWER_KEPT_MS)) return { status: held.status, asked: false };
  const answer: Answer = { status: check(probes[name]) };
  const kept = known;
  kept.set(name, answer);
  void answer.status.then((status) => {
    if (kept.get(name) !== answer) return;
    if (status.ok) answer.healthyAt = Date.now();
    else kept.delete(name);
  });
  return { status: answer.status, asked: true };
}

/**
 * Each component's status, so a broken piece is named rather than guessed. Answers within
 * REPORT_TIMEOUT_MS whatever the components do. The report that asked the table (not one that
 * reused its answer) leaves an uptime sample; a table that did not answer the probe cannot take it.
 */
export async function healthReport(): Promise<HealthReport> {
  const started = Date.now();
  const probes = ports().healthProbes();
  const answers = COMPONENTS.map((name) => answerOf(probes, name, started));
  const statuses = await Promise.all(answers.map(({ status }) => status));
  const components = Object.fromEntries(COMPONENTS.map((name, i) => [name, statuses[i]])) as HealthReport['components'];
  const report = { ok: statuses.every((status) => status.ok), components };
  const askedTable = answers[COMPONENTS.indexOf('database')].asked;
  if (askedTable && components.database.ok) {
    const left = REPORT_TIMEOUT_MS - (Date.now() - started);
    // The sample is the uptime figure's, not the report's: one that cannot be written in time is skipped.
    if (left > 0) await withinDeadline((signal) => recordHealthSample(report.ok, new Date(), { signal }), left).catch(() => {});
  }
  return report;
}
