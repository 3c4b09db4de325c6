import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resetConfig } from '#core/config';
import { bindLocalPreviewer, bindLocalWarmRenders, composeServer, downloadUpload, localPool, resetClients, stopLocalWorkers } from '#composition/server';
import { localPreviewer, localWarmScenes } from '#render/preview-step';
import { answerWarmRequests, localWarmRenders } from '#render/warm-render';
import { findBlender } from '#render/blender-install';
import { startDynamoDbLocal } from './dynamodb';
import { relaunchUnfinishedJobs } from '#core/jobs/launch';
import { startCognitoLocal } from './cognito';
import { startS3rver, corsConfiguration } from './s3';
import { startApiServer } from './api-server';
import { localRoutes, localSiteConfig } from './site-config';
import { ensureTable, ensureUserPool } from './bootstrap';
import { startStreamPoller } from './stream-poller';
import { seedAccounts, type SeededAccount } from './seed';
import { freePort, type Service } from './ports';

export interface LocalStackOptions {
  /** Where data persists between runs; omitted for tests, which get a fresh temporary stack with in-memory DynamoDB. */
  dataDir?: string;
  ports?: Partial<Record<'api' | 'dynamodb' | 'cognito' | 's3' | 'webhooks', number>>;
  /** The site's origin, for e-mail links and CORS (Vite's address in dev). */
  siteUrl?: string;
  log?: (line: string) => void;
}

export interface LocalStack {
  env: Record<string, string>;
  apiUrl: string;
  accounts: SeededAccount[];
  services: Service[];
  dataDir: string;
  /** The warm scene servers of the live previews (a benchmark stops them to measure a cold start). */
  previews: { stop(): Promise<void> };
  /** A free test animation's frames by the live previews' servers instead of the pool's own Blender (a benchmark compares them). */
  warmTestAnimations: (on: boolean) => void;
  stop: () => Promise<void>;
}

export const TABLE_NAME = 'cloud-render';
export const UPLOADS_BUCKET = 'cloud-render-uploads';
export const OUTPUTS_BUCKET = 'cloud-render-outputs';

/**
 * Starts the embedded default: DynamoDB Local, cognito-local, s3rver and the
 * local API server, creates the table, pool and buckets, and seeds the demo and
 * admin accounts. The server configuration is set in process.env, so the
 * handlers running in this process read it through core/config.ts.
 */
export async function startLocalStack(options: LocalStackOptions = {}): Promise<LocalStack> {
  const log = options.log ?? (() => {});
  const persistent = options.dataDir !== undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'cloud-render-'));
  const port = async (name: 'api' | 'dynamodb' | 'cognito' | 's3' | 'webhooks') => options.ports?.[name] ?? (await freePort());
  const ports = { api: await port('api'), dynamodb: await port('dynamodb'), cognito: await port('cognito'), s3: await port('s3'), webhooks: await port('webhooks') };
  const siteUrl = options.siteUrl ?? `http://localhost:${ports.api}`;
  const mailDir = join(dataDir, 'mail');
  for (const dir of ['cognito', 'mail', 's3', 'jobs']) mkdirSync(join(dataDir, dir), { recursive: true });
  // The stores (the table, the buckets' files, the mail, the workers' logs) are the stack's alone: a render tool, which
  // runs as a user of its own when the stack runs as root, cannot open them, wherever the data folder lives.
  chmodSync(dataDir, 0o700);

  const services: Service[] = [];
  // One warm server per scene, for the live previews and the free test stills alike (render/warm-scene.ts); the pool's
  // other chunks have servers of their own, a set per chunk rendered at once.
  const servers = localWarmScenes();
  const previews = localPreviewer(downloadUpload, servers);
  const renders = localWarmRenders(servers);
  const stop = async () => {
    await stopLocalWorkers();
    bindLocalPreviewer(undefined);
    bindLocalWarmRenders(undefined);
    await previews.stop();
    await renders.stop();
    for (const service of services.reverse()) await service.stop().catch(() => {});
    services.length = 0;
    if (!persistent) rmSync(dataDir, { recursive: true, force: true });
  };
  // Blender's `--version` (a whole Blender's start) is asked while the emulators start, so the health report's
  // first question about the renderer, which has a 1 s deadline like every probe, finds its answer ready.
  void findBlender();
  try {
    const [dynamo, cognito, s3] = await Promise.all([
      startDynamoDbLocal({ port: ports.dynamodb, dbPath: persistent ? join(dataDir, 'dynamodb') : undefined }),
      startCognitoLocal({ port: ports.cognito, dataDir: join(dataDir, 'cognito'), mailDir, mailFrom: 'no-reply@localhost', siteUrl: () => siteUrl }),
      startS3rver({
        port: ports.s3,
        directory: join(dataDir, 's3'),
        buckets: [
          { name: UPLOADS_BUCKET, cors: corsConfiguration([siteUrl, 'http://localhost:5173', 'http://127.0.0.1:5173']) },
          { name: OUTPUTS_BUCKET, cors: corsConfiguration([siteUrl, 'http://localhost:5173', 'http://127.0.0.1:5173']) },
        ],
      }),
    ]);
    services.push(dynamo, cognito, s3);
    log(`DynamoDB Local on ${dynamo.endpoint}, cognito-local on ${cognito.endpoint}, s3rver on ${s3.endpoint}`);

    await ensureTable(dynamo.endpoint, TABLE_NAME);
    const pool = await ensureUserPool(cognito.endpoint, join(dataDir, 'cognito', 'pool-ids.json'));
    const env: Record<string, string> = {
      AWS_REGION: 'us-east-1',
      AWS_ACCESS_KEY_ID: 'local',
      AWS_SECRET_ACCESS_KEY: 'local',
      TABLE_NAME,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      S3_ENDPOINT: s3.endpoint,
      UPLOADS_BUCKET,
      OUTPUTS_BUCKET,
      USER_POOL_ID: pool.userPoolId,
      USER_POOL_CLIENT_ID: pool.clientId,
      COGNITO_ENDPOINT: cognito.endpoint,
      SITE_URL: siteUrl,
      ADMIN_EMAILS: process.env.ADMIN_EMAILS ?? '',
      MAIL_MODE: 'local',
      MAIL_DIR: mailDir,
      MAIL_FROM: 'no-reply@localhost',
      SUPPORT_EMAIL: 'support@localhost',
      OWNER_EMAIL: 'owner@localhost',
      PAYMENTS_MODE: 'local',
      RENDER_MODE: 'local',
      LOCAL_JOBS_DIR: join(dataDir, 'jobs'),
      // Local only: webhooks may reach a receiver on this port of this machine (every other private address is refused).
      WEBHOOK_LOCAL_RECEIVER: `http://127.0.0.1:${ports.webhooks}`,
      ...(process.env.BLENDER_PATH ? { BLENDER_PATH: process.env.BLENDER_PATH } : {}),
    };
    Object.assign(process.env, env);
    resetConfig();
    resetClients();
    // The handlers, the stream poller and the schedules run in this process: it is their entry point.
    composeServer();
    // Live previews render here too, by warm scene servers (on AWS, the preview function).
    bindLocalPreviewer(previews);
    bindLocalWarmRenders((worker) => answerWarmRequests(worker, (request, hooks) => renders.render(request, hooks)));
    // A render worker booted ahead of the first click (and again whenever the pool falls idle).
    localPool().standBy();
    // What follows a job's done or failed state runs off the table's stream, as on AWS.
    services.push(await startStreamPoller({ endpoint: dynamo.endpoint, tableName: TABLE_NAME }));

    const accounts = await seedAccounts(cognito.endpoint, pool.userPoolId);
    const api = await startApiServer({ port: ports.api, issuer: `${cognito.endpoint}/${pool.userPoolId}`, clientId: pool.clientId, extraRoutes: localRoutes(() => localSiteConfig(env), () => mailDir, siteUrl) });
    services.push(api);
    log(`API on ${api.endpoint}`);
    if (persistent) {
      // A previous run killed mid-render left its jobs queued or rendering: the new pool takes them up.
      const relaunched = await relaunchUnfinishedJobs();
      if (relaunched.length) log(`Unfinished renders of the previous run taken up again: ${relaunched.length}`);
    }
    return { env, apiUrl: api.endpoint, accounts, services, dataDir, previews, warmTestAnimations: renders.warmTestAnimations, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
