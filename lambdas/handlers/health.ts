import { access, constants } from 'node:fs/promises';
import { DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { HeadBucketCommand } from '@aws-sdk/client-s3';
import { documentClient, s3Client, tableName } from '../../core/ports';
import { getConfig } from '../../core/config';
import { findBlender, BLENDER_MISSING_MESSAGE } from '../../render/blender-install';

export interface ComponentStatus {
  ok: boolean;
  detail: string;
}

export interface HealthReport {
  ok: boolean;
  components: Record<'database' | 'identity' | 'storage' | 'mail' | 'payments' | 'renderer', ComponentStatus>;
}

async function check(probe: () => Promise<string>): Promise<ComponentStatus> {
  try {
    return { ok: true, detail: await probe() };
  } catch (error) {
    return { ok: false, detail: (error as Error).message || String(error) };
  }
}

/** GET /api/health: each component's status, so a broken piece is named rather than guessed. */
export async function health(): Promise<HealthReport> {
  const config = getConfig();
  const [database, identity, storage, mail, payments, renderer] = await Promise.all([
    check(async () => {
      const { Table } = await documentClient().send(new DescribeTableCommand({ TableName: tableName() }));
      return `table ${Table?.TableName} ${Table?.TableStatus?.toLowerCase()}`;
    }),
    check(async () => {
      const issuer = config.COGNITO_ENDPOINT
        ? `${config.COGNITO_ENDPOINT}/${config.USER_POOL_ID}`
        : `https://cognito-idp.${config.AWS_REGION}.amazonaws.com/${config.USER_POOL_ID}`;
      const response = await fetch(`${issuer}/.well-known/jwks.json`, { signal: AbortSignal.timeout(3000) });
      if (!response.ok) throw new Error(`user pool keys answered ${response.status}`);
      return `user pool ${config.USER_POOL_ID}`;
    }),
    check(async () => {
      for (const Bucket of [config.UPLOADS_BUCKET, config.OUTPUTS_BUCKET]) await s3Client().send(new HeadBucketCommand({ Bucket }));
      return `buckets ${config.UPLOADS_BUCKET}, ${config.OUTPUTS_BUCKET}`;
    }),
    check(async () => {
      if (config.MAIL_MODE === 'ses') return `SES from ${config.MAIL_FROM}`;
      await access(config.MAIL_DIR ?? '', constants.W_OK);
      return `local mail folder ${config.MAIL_DIR}`;
    }),
    check(async () => {
      if (config.PAYMENTS_MODE === 'local') return 'local test mode: test cards only, no real payment is taken';
      if (!config.STRIPE_SECRET_KEY && !config.STRIPE_SECRET_ARN) throw new Error('Stripe secret key is not configured');
      return 'Stripe';
    }),
    check(async () => {
      if (config.RENDER_MODE === 'batch') {
        if (!config.RENDER_JOB_QUEUE || !config.RENDER_JOB_DEFINITION || !config.ENCODE_JOB_DEFINITION) throw new Error('render farm is not configured');
        return 'AWS Batch array jobs on Fargate (Spot first)';
      }
      const blender = await findBlender();
      if (!blender) throw new Error(BLENDER_MISSING_MESSAGE);
      return `Blender ${blender.version} at ${blender.path}`;
    }),
  ]);
  const components = { database, identity, storage, mail, payments, renderer };
  return { ok: Object.values(components).every((c) => c.ok), components };
}
