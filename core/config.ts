import { z } from 'zod';
import { DEFAULT_FAST_PATH_CONCURRENCY } from '#shared/fast-path';
import { API_KEY_REQUESTS_PER_SECOND, PREVIEWS_PER_MINUTE, RENDERS_AT_ONCE_PER_ACCOUNT, VISITOR_PREVIEWS_PER_MINUTE } from '#shared/rate-limit';

/**
 * Server configuration, read once from the environment and validated. On AWS the
 * CDK stack sets these variables on each function; locally infra/local/ sets them.
 * Settings marked "local only" point the SDKs at the embedded emulators.
 */
const optionalUrl = z.string().url().optional();
const configSchema = z.object({
  AWS_REGION: z.string().default('us-east-1'),
  TABLE_NAME: z.string().min(1),
  DYNAMODB_ENDPOINT: optionalUrl, // local only: DynamoDB Local
  S3_ENDPOINT: optionalUrl, // local only: s3rver
  UPLOADS_BUCKET: z.string().min(1),
  OUTPUTS_BUCKET: z.string().min(1),
  USER_POOL_ID: z.string().min(1),
  USER_POOL_CLIENT_ID: z.string().min(1),
  COGNITO_ENDPOINT: optionalUrl, // local only: cognito-local
  SITE_URL: z.string().url(),
  ADMIN_EMAILS: z
    .string()
    .default('')
    .transform((s) => s.split(',').map((e) => e.trim().toLowerCase()).filter(Boolean)),
  MAIL_MODE: z.enum(['ses', 'local']).default('ses'),
  MAIL_DIR: z.string().optional(), // local only: where .eml files are written
  MAIL_FROM: z.string().default('no-reply@example.com'),
  SUPPORT_EMAIL: z.string().default('support@example.com'),
  OWNER_EMAIL: z.string().default('owner@example.com'),
  PAYMENTS_MODE: z.enum(['stripe', 'local']).default('stripe'),
  STRIPE_SECRET_KEY: z.string().optional(),
  STRIPE_WEBHOOK_SECRET: z.string().optional(),
  STRIPE_SECRET_ARN: z.string().optional(), // on AWS: Secrets Manager secret holding both Stripe secrets
  STRIPE_API_HOST: z.string().optional(), // tests only: local HTTP double of Stripe's API
  RENDER_MODE: z.enum(['batch', 'local']).default('batch'),
  RENDER_JOB_QUEUE: z.string().optional(), // on AWS: the Batch job queue's ARN
  RENDER_JOB_DEFINITION: z.string().optional(), // on AWS: the chunk job definition's ARN
  FINISH_JOB_DEFINITION: z.string().optional(), // on AWS: the finish job definition's ARN
  RENDER_FUNCTION_NAME: z.string().optional(), // on AWS: the render function (the fast path); unset, every render goes to Batch
  /** On AWS: the render function's reserved concurrency, chunks rendering at once on the fast path. */
  RENDER_FUNCTION_CONCURRENCY: z.coerce.number().int().min(1).default(DEFAULT_FAST_PATH_CONCURRENCY),
  /** On AWS: the render function's /tmp in MB (512 with SnapStart): a video whose finishing step would not fit goes to Batch. */
  RENDER_FUNCTION_STORAGE_MB: z.coerce.number().int().min(1).optional(),
  /** How many jobs of one user render at once; the rest wait in order. */
  RENDER_JOBS_PER_USER: z.coerce.number().int().min(1).default(RENDERS_AT_ONCE_PER_ACCOUNT),
  /** The render API's budget per key; the served OpenAPI document states this value. */
  API_KEY_REQUESTS_PER_SECOND: z.coerce.number().int().min(1).default(API_KEY_REQUESTS_PER_SECOND),
  /** Live previews a customer (and a visitor) may ask for in a minute; a benchmark of the preview's speed lifts them. */
  PREVIEWS_PER_MINUTE: z.coerce.number().int().min(1).default(PREVIEWS_PER_MINUTE),
  VISITOR_PREVIEWS_PER_MINUTE: z.coerce.number().int().min(1).default(VISITOR_PREVIEWS_PER_MINUTE),
  /** On AWS: chunk workers the farm runs at once (its vCPU ceiling over each worker's vCPUs); the queue's wait is estimated from it. */
  RENDER_FARM_WORKERS: z.coerce.number().int().min(1).optional(),
  LOCAL_RENDER_WORKERS: z.coerce.number().int().min(1).optional(), // local only: workers at once (default: the machine's cores)
  BLENDER_PATH: z.string().optional(),
  // On AWS: the value CloudFront sends in the origin-verify header; requests without it are refused. Unset locally (no CloudFront).
  ORIGIN_VERIFY_SECRET: z.string().min(16).optional(),
  // Local only: the one origin on this machine (http://127.0.0.1:port) that webhooks may reach; every other private address is refused.
  WEBHOOK_LOCAL_RECEIVER: optionalUrl,
  // Measures uploaded audio when a job is created: Debian's ffmpeg package here and in the render image.
  FFPROBE_PATH: z.string().default('ffprobe'),
  // On AWS: the probe function (the render image, adapters/media-probe.ts) that measures uploads; unset, this process runs ffprobe.
  MEDIA_PROBE_FUNCTION: z.string().optional(),
  /** On AWS: the preview function (the render image, RENDER_STEP=preview); locally previews render in the API's process. */
  PREVIEW_FUNCTION: z.string().optional(),
  /** With PREVIEW_FUNCTION: its timeout (how long a customer's turn is held when the API stopped waiting) and its reserved executions (the visitors' share is counted from them). */
  PREVIEW_TIMEOUT_SECONDS: z.coerce.number().int().min(1).optional(),
  PREVIEW_CONCURRENCY: z.coerce.number().int().min(1).optional(),
  // On AWS, the worker session broker only: the role it takes for one job; the job (and its owner and input,
  // from the job item) become session tags and a session policy that narrow the role to them.
  WORKER_SCOPE_ROLE_ARN: z.string().optional(),
  JOB_ID: z.string().optional(),
  // A render worker on AWS: the session broker it asks for credentials, and the ticket its farm submission carries.
  WORKER_SESSION_FUNCTION: z.string().optional(),
  WORKER_TICKET: z.string().optional(),
  LAMBDA_ENDPOINT: optionalUrl, // tests only: local HTTP double of Lambda's Invoke
  STS_ENDPOINT: optionalUrl, // tests only: local HTTP double of STS
  // The deadlines of every outside call (adapters/clients.ts): API requests by default; streams and
  // schedules ('background') and the render worker ('worker') have their own, set by their entry point.
  CALL_BUDGET: z.enum(['request', 'background', 'worker']).default('request'),
  // Test tiers only: stretches those deadlines on a loaded machine, where DynamoDB Local queues transactions.
  CALL_TIMEOUT_SCALE: z.coerce.number().min(1).max(10).default(1),
  // Tests and the local stack only: injected AWS faults, e.g. ddb.throttle:0.05,ddb.conflict:0.05,s3.error:0.02 (adapters/aws-faults.ts).
  FAULTS: z.string().optional(),
});

export type Config = z.infer<typeof configSchema>;

let cached: Config | undefined;

export function getConfig(): Config {
  if (cached) return cached;
  const parsed = configSchema.safeParse(process.env);
  if (!parsed.success) {
    const names = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new Error(`Invalid server configuration: ${names.join('; ')}`);
  }
  cached = parsed.data;
  return cached;
}

/** For tests and the local stack, which set the environment after import. */
export function resetConfig(): void {
  cached = undefined;
}
