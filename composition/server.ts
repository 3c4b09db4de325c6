import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { S3Client } from '@aws-sdk/client-s3';
import { getConfig, resetConfig, type Config } from '#core/config';
import { bindPorts, type Farm, type HealthProbe, type HealthProbes, type Mailer, type MediaDuration, type PaymentProvider, type Ports, type Previewer, type UploadToMeasure } from '#core/ports';
import { farmJobState } from '#core/jobs/launch';
import { createDocumentClient, createS3Client, createTableClient, type AwsClientSettings, type CallSettings } from '#adapters/clients';
import { DynamoDbTable } from '#adapters/dynamodb-table';
import { S3Bucket } from '#adapters/s3-bucket';
import { guardTableRequests } from '#adapters/table-guard';
import { stsScopeIssuer, workerCredentials as scopedCredentials, workerTaskBroker, type WorkerCredentialSettings } from '#adapters/worker-credentials';
import { bindRenderTasks, renderTasksOver, type RenderTasks } from '#core/jobs/render-tasks';
import { isAnsweringRenderTask, taskServer } from '#core/jobs/task-server';
import { localMailer, sesMailer } from '#adapters/mailer';
import { fetchUpload, functionMediaProbe, probeUpload } from '#adapters/media-probe';
import { stripePayments } from '#adapters/stripe';
import { localPayments } from '#adapters/local-payments';
import { BatchFarm } from '#adapters/batch-farm';
import { FunctionFarm } from '#adapters/function-farm';
import { functionPreviewer } from '#adapters/preview-function';
import { LocalRenderPool, localFarm, type WarmRenders } from '#adapters/local-render-pool';
import { bucketsProbe, mailFolderProbe, tableProbe, userPoolKeysProbe } from '#adapters/health-probes';
// A leaf module (it imports nothing of ours): whether Blender is here, without loading the renderer.
import { BLENDER_MISSING_MESSAGE, findBlender } from '#render/blender-install';

/**
 * The composition: which adapter serves which of the core's ports, with the
 * settings read from the environment (core/config.ts). Every entry point calls
 * composeServer() once: the Lambda modules, the local stack, the render worker.
 * Adapters are made on first use and kept until the configuration they were made
 * from is reset (tests and the local stack set the environment after import).
 */
let made:
  | {
      config: Config;
      ddb?: DynamoDBDocumentClient;
      s3?: S3Client;
      table?: DynamoDbTable;
      uploads?: S3Bucket;
      outputs?: S3Bucket;
      mailer?: Mailer;
      payments?: PaymentProvider;
      batch?: Farm;
      function?: Farm;
      probe?: Ports['mediaDuration'];
      previewer?: Previewer;
      health?: HealthProbes;
      tasks?: RenderTasks;
    }
  | undefined;
let credentials: ReturnType<typeof scopedCredentials> | undefined;
let pool: LocalRenderPool | undefined;

/** The adapters made from the current configuration (a new configuration starts afresh). */
function current() {
  const config = getConfig();
  if (made?.config !== config) made = { config };
  return made;
}

/**
 * The SDK clients the table's and the buckets' adapters send through, made from the current configuration: the render
 * worker's guard is put on the table's (holdWorkerToItsJob), and tests watch the requests or the credentials on them.
 */
export const documentClient = (): DynamoDBDocumentClient => (current().ddb ??= createDocumentClient(awsSettings()));
export const s3Client = (): S3Client => (current().s3 ??= createS3Client(awsSettings()));

export function composeServer(): void {
  bindPorts({
    table: () => (current().table ??= new DynamoDbTable(documentClient(), current().config.TABLE_NAME)),
    uploads: () => (current().uploads ??= new S3Bucket(s3Client(), current().config.UPLOADS_BUCKET)),
    outputs: () => (current().outputs ??= new S3Bucket(s3Client(), current().config.OUTPUTS_BUCKET)),
    mailer: () => {
      const adapters = current();
      const { config } = adapters;
      if (config.MAIL_MODE === 'local') {
        if (!config.MAIL_DIR) throw new Error('MAIL_DIR must be set when MAIL_MODE is local');
        return (adapters.mailer ??= localMailer({ dir: config.MAIL_DIR, from: config.MAIL_FROM }));
      }
      return (adapters.mailer ??= sesMailer({ region: config.AWS_REGION, from: config.MAIL_FROM, calls: callSettings(config) }));
    },
    mediaDuration: (upload) => {
      const adapters = current();
      const { config } = adapters;
      adapters.probe ??= config.MEDIA_PROBE_FUNCTION
        ? functionMediaProbe({ region: config.AWS_REGION, functionName: config.MEDIA_PROBE_FUNCTION, calls: callSettings(config), endpoint: config.LAMBDA_ENDPOINT })
        : measureUploadHere;
      return adapters.probe(upload);
    },
    payments: () => {
      const adapters = current();
      const { config } = adapters;
      if (config.PAYMENTS_MODE === 'local') return (adapters.payments ??= localPayments());
      return (adapters.payments ??= stripePayments({
        region: config.AWS_REGION,
        secretArn: config.STRIPE_SECRET_ARN,
        secretKey: config.STRIPE_SECRET_KEY,
        webhookSecret: config.STRIPE_WEBHOOK_SECRET,
        apiHost: config.STRIPE_API_HOST,
        calls: callSettings(config),
      }));
    },
    farm: (engine) => {
      const adapters = current();
      const { config } = adapters;
      if (engine === 'local') return localFarm(localPool());
      if (engine === 'function') return (adapters.function ??= new FunctionFarm({ region: config.AWS_REGION, functionName: config.RENDER_FUNCTION_NAME, calls: callSettings(config), endpoint: config.LAMBDA_ENDPOINT }));
      return (adapters.batch ??= new BatchFarm({
        region: config.AWS_REGION,
        jobQueue: config.RENDER_JOB_QUEUE,
        renderJobDefinition: config.RENDER_JOB_DEFINITION,
        finishJobDefinition: config.FINISH_JOB_DEFINITION,
        calls: callSettings(config),
      }));
    },
    previewer: () => {
      const adapters = current();
      const { config } = adapters;
      if (config.PREVIEW_FUNCTION) {
        if (!config.PREVIEW_TIMEOUT_SECONDS) throw new Error('PREVIEW_TIMEOUT_SECONDS must be set when PREVIEW_FUNCTION is');
        return (adapters.previewer ??= functionPreviewer({
          region: config.AWS_REGION,
          functionName: config.PREVIEW_FUNCTION,
          timeoutMs: config.PREVIEW_TIMEOUT_SECONDS * 1000,
          calls: callSettings(config),
          endpoint: config.LAMBDA_ENDPOINT,
        }));
      }
      if (!localPreviews) throw Object.defineProperty(new Error('No previewer: PREVIEW_FUNCTION is not set and no local one is bound'), 'dependency', { value: 'farm' });
      return localPreviews;
    },
    healthProbes: () => {
      const adapters = current();
      return (adapters.health ??= healthProbes(adapters.config));
    },
  });
  // The render worker's questions: through the session broker on AWS (its job's ticket shown), else answered here.
  bindRenderTasks(() => {
    const adapters = current();
    return (adapters.tasks ??= brokeredTasks(adapters.config) ?? taskServer);
  });
}

/** On AWS, the render worker's questions carried by name to the session broker; undefined elsewhere. */
function brokeredTasks(config: Config): RenderTasks | undefined {
  const broker = workerTaskBroker(brokerSettings(config));
  return broker && renderTasksOver(broker);
}

/**
 * This process measures an upload itself: it reads the upload through its presigned URL and runs ffprobe
 * (FFPROBE_PATH). The media probe port is served so when MEDIA_PROBE_FUNCTION is unset (the local stack), and the
 * probe function on AWS (render/probe-step.ts, bound by render/worker.ts) is this.
 */
export function measureUploadHere(upload: UploadToMeasure): Promise<MediaDuration> {
  return probeUpload(upload, getConfig().FFPROBE_PATH);
}

/**
 * How a live preview reads the customer's upload (render/preview-step.ts, bound by its two entry points,
 * render/worker.ts and infra/local/stack.ts): through the presigned URL the API sent, capped, with a deadline, and only
 * the content of the ETag the API inspected (the link is signed with If-Match, and the answer's ETag is compared).
 * The render image imports no adapter; this is the one it is given.
 */
export const downloadUpload: (upload: UploadToMeasure & { etag: string }, file: string, maxBytes: number, deadlineMs: number) => Promise<void> = fetchUpload;

/**
 * The health report's questions, for the adapters this configuration binds: the table, the pool and the
 * buckets on clients of their own that ask once (the `probe` budget), the mail folder, and what the
 * settings say of mail, payments and the render farm; locally, whether Blender answers `--version`.
 */
function healthProbes(config: Config): HealthProbes {
  const settings: AwsClientSettings = { ...awsSettings(), calls: { ...callSettings(config), budget: 'probe' } };
  const issuer = config.COGNITO_ENDPOINT ? `${config.COGNITO_ENDPOINT}/${config.USER_POOL_ID}` : `https://cognito-idp.${config.AWS_REGION}.amazonaws.com/${config.USER_POOL_ID}`;
  const answer = (found: string): HealthProbe => async () => ({ found });
  const missing = (misconfigured: string): HealthProbe => async () => ({ misconfigured });
  const stripeConfigured = Boolean(config.STRIPE_SECRET_KEY || config.STRIPE_SECRET_ARN);
  const farmConfigured = Boolean(config.RENDER_JOB_QUEUE && config.RENDER_JOB_DEFINITION && config.FINISH_JOB_DEFINITION);
  return {
    database: tableProbe(createTableClient(settings), config.TABLE_NAME),
    identity: userPoolKeysProbe(issuer, config.USER_POOL_ID),
    storage: bucketsProbe(createS3Client(settings), [config.UPLOADS_BUCKET, config.OUTPUTS_BUCKET]),
    mail: config.MAIL_MODE === 'ses' ? answer(`SES from ${config.MAIL_FROM}`) : mailFolderProbe(config.MAIL_DIR),
    payments:
      config.PAYMENTS_MODE === 'local'
        ? answer('local test mode: test cards only, no real payment is taken')
        : stripeConfigured
          ? answer('Stripe')
          : missing('Stripe secret key is not configured'),
    renderer:
      config.RENDER_MODE === 'batch'
        ? farmConfigured
          ? answer('AWS Batch array jobs on Fargate (Spot first)')
          : missing('render farm is not configured')
        : async () => {
            // Asked once per process and path (a missing Blender again each time: it may have been installed since).
            const blender = await findBlender();
            return blender ? { found: `Blender ${blender.version} at ${blender.path}` } : { misconfigured: BLENDER_MISSING_MESSAGE };
          },
  };
}

/** The local stack's previewer (render/preview-step.ts's warm scene servers, in its own process): bound by infra/local/stack.ts. */
let localPreviews: Previewer | undefined;

export function bindLocalPreviewer(previewer: Previewer | undefined): void {
  localPreviews = previewer;
}

/** The local stack's warm renders (render/warm-render.ts), in its own process: the pool's workers ask for them. */
let localWarmRenders: WarmRenders | undefined;

export function bindLocalWarmRenders(render: WarmRenders | undefined): void {
  localWarmRenders = render;
}

function awsSettings(): AwsClientSettings {
  const config = getConfig();
  const scoped = workerCredentials();
  return { region: config.AWS_REGION, dynamodbEndpoint: config.DYNAMODB_ENDPOINT, s3Endpoint: config.S3_ENDPOINT, calls: callSettings(config), ...(scoped ? { credentials: scoped } : {}) };
}

/** Every outside call's deadlines and retries (the entry point's CALL_BUDGET), and the faults injected in tests and locally. */
function callSettings(config: Config): CallSettings {
  return { budget: config.CALL_BUDGET, timeoutScale: config.CALL_TIMEOUT_SCALE, faults: config.FAULTS };
}

/** How a render worker on AWS reaches the session broker, for its job and ticket. */
function brokerSettings(config: Config): WorkerCredentialSettings {
  return {
    region: config.AWS_REGION,
    sessionFunction: config.WORKER_SESSION_FUNCTION,
    jobId: config.JOB_ID,
    ticket: config.WORKER_TICKET,
    lambdaEndpoint: config.LAMBDA_ENDPOINT,
    calls: callSettings(config),
  };
}

/**
 * On AWS, the render worker's credentials for its one job, from the session broker
 * (see adapters/worker-credentials.ts); undefined elsewhere.
 */
export function workerCredentials(): ReturnType<typeof scopedCredentials> | undefined {
  const config = getConfig();
  if (!config.WORKER_SESSION_FUNCTION) return undefined;
  credentials ??= scopedCredentials(brokerSettings(config));
  return credentials;
}

/**
 * On AWS, the worker's job credentials asked for now rather than by its first storage request: the session broker's
 * answer (a synchronous Invoke and an AssumeRole) then comes while the worker asks for its chunk and checks its tools,
 * not in series with the input's download or the first frame's upload. A failure is left to that request, which asks
 * again. Nothing elsewhere.
 */
export function askWorkerCredentialsAhead(): void {
  workerCredentials()?.().catch(() => undefined);
}

/** The session broker's port to STS (lambdas/farm/worker-session.ts): the scope role, taken for one job. */
export function scopeIssuer(): ReturnType<typeof stsScopeIssuer> {
  const config = getConfig();
  if (!config.WORKER_SCOPE_ROLE_ARN) throw new Error('WORKER_SCOPE_ROLE_ARN must be set for the worker session broker');
  return stsScopeIssuer({
    region: config.AWS_REGION,
    roleArn: config.WORKER_SCOPE_ROLE_ARN,
    outputsBucket: config.OUTPUTS_BUCKET,
    uploadsBucket: config.UPLOADS_BUCKET,
    stsEndpoint: config.STS_ENDPOINT,
    calls: callSettings(config),
  });
}

/**
 * The render worker's table client refuses, before sending, every request of its own: a worker asks the task
 * server (core/jobs/task-server.ts) and writes nothing itself, as its scope role, which holds no table rights,
 * refuses on AWS. Locally the task server answers in this process, and only its requests pass (it marks them).
 */
export function holdWorkerToItsJob(jobId: string): void {
  guardTableRequests(documentClient(), (command) =>
    isAnsweringRenderTask() ? undefined : `the render worker of job ${jobId} sends no ${command.replace(/Command$/, '')} to the table: it asks the task server`,
  );
}

/**
 * A render function invocation's job: its settings, and table and storage clients with credentials for that job
 * alone, held to its writes as on Batch. Called in the invocation's own process (render/lambda-runtime.ts,
 * serveInvocationsApart), which ends with the invocation: the ticket set here, and the credentials the session broker
 * gives for it, never reach the environment's long-lived process, so the next invocation's tools cannot find them there.
 */
export function serveInvocationJob(jobId: string, ticket: string | undefined): void {
  process.env.JOB_ID = jobId;
  if (ticket) process.env.WORKER_TICKET = ticket;
  else delete process.env.WORKER_TICKET;
  resetConfig();
  resetClients();
  holdWorkerToItsJob(jobId);
}

/** For tests that change the worker's settings within one process. */
export function resetWorkerCredentials(): void {
  credentials = undefined;
}

/** For tests and the local stack, which switch stacks within one process: the SDK clients are made again. */
export function resetClients(): void {
  made = undefined;
  credentials = undefined;
}

/** Local only: the machine's render farm, as wide as its cores unless LOCAL_RENDER_WORKERS says otherwise. */
export function localPool(): LocalRenderPool {
  const config = getConfig();
  pool ??= new LocalRenderPool({
    jobs: farmJobState,
    workers: config.LOCAL_RENDER_WORKERS ?? availableParallelism(),
    jobsPerUser: config.RENDER_JOBS_PER_USER,
    jobsDir: process.env.LOCAL_JOBS_DIR ?? resolve('.local/jobs'),
    warmRenders: () => localWarmRenders,
    standby: true,
  });
  return pool;
}

/** Local only: stops the workers this process started and empties the queue (when the local stack stops). */
export async function stopLocalWorkers(): Promise<void> {
  await pool?.stop();
  pool = undefined;
}
