import { access, constants } from 'node:fs/promises';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { documentClient, s3Client, tableName } from '../../core/ports';
import { getConfig } from '../../core/config';
import { classifyDependencyFailure, type FailureKind } from '../../core/errors';
import { findBlender, BLENDER_MISSING_MESSAGE } from '../../render/blender-install';

export interface ComponentStatus {
  ok: boolean;
  detail: string;
}

export type ComponentName = 'database' | 'identity' | 'storage' | 'mail' | 'payments' | 'renderer';

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

/** Each probe's deadline: the whole report answers within 2 s even when a component hangs. */
export const PROBE_TIMEOUT_MS = 1000;

/**
 * A failed probe's public detail. The report is public, so a dependency failure is
 * described by its kind (an SDK's message names internal hosts and ports); only our
 * own configuration messages are shown as they are.
 */
function failureDetail(error: unknown): string {
  const failure = classifyDependencyFailure(error);
  if (failure) return FAILURE_DETAIL[failure.kind];
  if ((error as Error).name === 'AbortError' || (error as Error).name === 'TimeoutError') return FAILURE_DETAIL.timeout;
  return error instanceof ConfigurationProblem ? error.message : 'unavailable';
}

const FAILURE_DETAIL: Record<FailureKind, string> = {
  timeout: `unreachable: no answer within ${PROBE_TIMEOUT_MS / 1000} s`,
  unreachable: 'unreachable: connection refused or lost',
  throttled: 'throttled',
  conflict: 'busy',
  server_error: 'answered with a server error',
};

/** A problem an operator fixes in the settings; its message names the setting and is safe to show. */
class ConfigurationProblem extends Error {}

/**
 * One probe. A probe over the network (the table, the user pool, the buckets) answers by the deadline: its
 * own call is aborted then, and the race covers any step that does not take the signal. Probes of this
 * machine's own settings and programs (the mail folder, Blender) have no network to wait on.
 */
async function check(probe: (signal: AbortSignal) => Promise<string>, { overNetwork = true } = {}): Promise<ComponentStatus> {
  const signal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
  try {
    const deadline = new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason), { once: true }));
    deadline.catch(() => {}); // once the probe has answered, the deadline passing later is no one's concern
    return { ok: true, detail: await (overNetwork ? Promise.race([probe(signal), deadline]) : probe(signal)) };
  } catch (error) {
    return { ok: false, detail: failureDetail(error) };
  }
}

/** GET /api/health: each component's status, so a broken piece is named rather than guessed. */
export async function health(): Promise<HealthReport> {
  const config = getConfig();
  const [database, identity, storage, mail, payments, renderer] = await Promise.all([
    check(async (abortSignal) => {
      const { Table } = await documentClient().send(new DescribeTableCommand({ TableName: tableName() }), { abortSignal });
      return `table ${Table?.TableName} ${Table?.TableStatus?.toLowerCase()}`;
    }),
    check(async (signal) => {
      const issuer = config.COGNITO_ENDPOINT
        ? `${config.COGNITO_ENDPOINT}/${config.USER_POOL_ID}`
        : `https://cognito-idp.${config.AWS_REGION}.amazonaws.com/${config.USER_POOL_ID}`;
      const response = await fetch(`${issuer}/.well-known/jwks.json`, { signal });
      if (!response.ok) throw new Error(`user pool keys answered ${response.status}`);
      return `user pool ${config.USER_POOL_ID}`;
    }),
    check(async (abortSignal) => {
      for (const Bucket of [config.UPLOADS_BUCKET, config.OUTPUTS_BUCKET]) await s3Client().send(new HeadBucketCommand({ Bucket }), { abortSignal });
      return `buckets ${config.UPLOADS_BUCKET}, ${config.OUTPUTS_BUCKET}`;
    }),
    check(async () => {
      if (config.MAIL_MODE === 'ses') return `SES from ${config.MAIL_FROM}`;
      await access(config.MAIL_DIR ?? '', constants.W_OK);
      return `local mail folder ${config.MAIL_DIR}`;
    }, { overNetwork: false }),
    check(async () => {
      if (config.PAYMENTS_MODE === 'local') return 'local test mode: test cards only, no real payment is taken';
      if (!config.STRIPE_SECRET_KEY && !config.STRIPE_SECRET_ARN) throw new ConfigurationProblem('Stripe secret key is not configured');
      return 'Stripe';
    }, { overNetwork: false }),
    check(async () => {
      if (config.RENDER_MODE === 'batch') {
        if (!config.RENDER_JOB_QUEUE || !config.RENDER_JOB_DEFINITION || !config.ENCODE_JOB_DEFINITION) throw new ConfigurationProblem('render farm is not configured');
        return 'AWS Batch array jobs on Fargate (Spot first)';
      }
      const blender = await findBlender();
      if (!blender) throw new ConfigurationProblem(BLENDER_MISSING_MESSAGE);
      return `Blender ${blender.version} at ${blender.path}`;
    }, { overNetwork: false }),
  ]);
  const components = { database, identity, storage, mail, payments, renderer };
  return { ok: Object.values(components).every((c) => c.ok), components };
}
