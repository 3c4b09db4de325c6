import { z } from 'zod';

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
  RENDER_MODE: z.enum(['ecs', 'local']).default('ecs'),
  RENDER_CLUSTER_ARN: z.string().optional(),
  RENDER_TASK_DEFINITION_ARN: z.string().optional(),
  RENDER_SUBNET_IDS: z.string().optional(),
  RENDER_SECURITY_GROUP_ID: z.string().optional(),
  RENDER_CONTAINER_NAME: z.string().default('worker'),
  BLENDER_PATH: z.string().optional(),
  // On AWS: the value CloudFront sends in the origin-verify header; requests without it are refused. Unset locally (no CloudFront).
  ORIGIN_VERIFY_SECRET: z.string().min(16).optional(),
  // Measures uploaded audio when a job is created (Debian's ffmpeg package locally; a layer's binary on Lambda).
  FFPROBE_PATH: z.string().default('ffprobe'),
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
