import { Duration, RemovalPolicy, Size } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as destinations from 'aws-cdk-lib/aws-lambda-destinations';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { RENDER_FUNCTION } from '#shared/fast-path';
import { repoRoot } from '../paths';
import { renderImageFunction } from './render-image-function';

export interface RenderFunctionProps {
  /** Server settings the worker reads through core/config.ts. */
  environment: Record<string, string>;
  /** The session broker (the farm's): it gives a worker its one job's credentials for the ticket the launcher handed it. */
  sessionBroker: lambda.IFunction;
  /** Executions at once, reserved for the function (renderFunctionConcurrency). */
  reservedConcurrency: number;
  /** The worker image and its processor (workerImage). */
  worker: WorkerImage;
  /** SnapStart on published versions (the snapStart setting). */
  snapStart: boolean;
}

/** The render worker's container image (render/Dockerfile) and the processor it is built for: the render, probe and preview functions run it. */
export interface WorkerImage {
  image: lambda.DockerImageCode;
  architecture: lambda.Architecture;
}

/**
 * Built by `cdk deploy` from render/Dockerfile; synth only hashes it. Each function runs the role its RENDER_STEP names
 * (render/worker.ts starts render/entries/<role>.ts), which speaks Lambda's Runtime API. It is built for the functions'
 * processor (an arm64 function cannot run an x86 image); one asset, built once, whichever functions run it.
 */
export function workerImage(architecture: 'x86_64' | 'arm64'): WorkerImage {
  const arm = architecture === 'arm64';
  return {
    image: lambda.DockerImageCode.fromImageAsset(repoRoot, { file: 'render/Dockerfile', platform: arm ? Platform.LINUX_ARM64 : Platform.LINUX_AMD64 }),
    architecture: arm ? lambda.Architecture.ARM_64 : lambda.Architecture.X86_64,
  };
}

/**
 * SnapStart's limit on /tmp: "SnapStart does not support ... ephemeral storage greater than 512 MB" (Lambda developer
 * guide, "Improving startup performance with Lambda SnapStart").
 */
export const SNAPSTART_EPHEMERAL_STORAGE = Size.mebibytes(512);

/**
 * SnapStart on published versions for a function of the render image (aws-cdk-lib's SnapStartConf.ON_PUBLISHED_VERSIONS:
 * the template's `SnapStart: { ApplyOn: PublishedVersions }`; the L2 takes it for an image function): Lambda runs Init
 * when a version is published, snapshots it, and restores that version's new environments from the snapshot (the
 * image's runtime speaks the restore lifecycle: render/lambda-runtime.ts). With it, /tmp is SnapStart's 512 MB at most;
 * without it, `ephemeral` (Lambda's default 512 MB when not given).
 */
/**
 * A SnapStart version not invoked for 14 days becomes Inactive, and an invocation meanwhile is refused
 * (SnapStartNotReadyException) until Lambda has initialised it again (Lambda developer guide, "Troubleshooting SnapStart
 * errors for Lambda functions"): a quiet fortnight would refuse the first render or preview after it. A daily invocation
 * of the alias with `event` (one that does nothing: the render function's keep-active step, a preview's warm-up of a
 * scene already warm) keeps the version active, for one restore a day.
 */
export function keepVersionActive(scope: Construct, alias: lambda.Alias, event: Record<string, unknown>): events.Rule {
  return new events.Rule(scope, 'KeepActive', {
    description: "Keeps the SnapStart version active (invoked at least once in 14 days)",
    schedule: events.Schedule.rate(Duration.days(1)),
    targets: [new targets.LambdaFunction(alias, { event: events.RuleTargetInput.fromObject(event), retryAttempts: 2 })],
  });
}

export function snapStartSettings(snapStart: boolean, ephemeral?: Size): Pick<lambda.DockerImageFunctionProps, 'snapStart' | 'ephemeralStorageSize' | 'currentVersionOptions'> {
  // A deploy publishes a new version for the alias; the one it replaces is deleted, not kept (CDK keeps it by default):
  // SnapStart bills each active version's snapshot cache.
  const versions = { currentVersionOptions: { removalPolicy: RemovalPolicy.DESTROY } };
  if (!snapStart) return { ...versions, ...(ephemeral ? { ephemeralStorageSize: ephemeral } : {}) };
  return { ...versions, snapStart: lambda.SnapStartConf.ON_PUBLISHED_VERSIONS, ephemeralStorageSize: SNAPSTART_EPHEMERAL_STORAGE };
}

/**
 * Retries Lambda makes of a failed asynchronous invocation (0-2): a chunk that failed on
 * our side is tried again at once, then its lease lets the sweep hand it out again.
 */
export const FUNCTION_RETRY_ATTEMPTS = 2;
/**
 * Chunk files on /tmp without SnapStart: Full-HD frames (about 4 MB each as PNG, plus the frame being
 * denoised: its passes as a 32-bit EXR, about 100 MB), the segment and the input.
 * A 30-frame chunk needs well under 1 GB; the finishing step holds every segment and the
 * video (a 10-minute Full-HD video is about 1 GB, twice while joined). With SnapStart, /tmp is
 * 512 MB (SNAPSTART_EPHEMERAL_STORAGE): bench:delivery prints the largest job's need against it.
 */
export const EPHEMERAL_STORAGE = Size.gibibytes(4);

/**
 * The fast path: the render worker's container image (render/Dockerfile, the same as the
 * Batch workers') as a Lambda function of the largest size, one chunk per invocation.
 *
 * Chunks reach it by direct asynchronous Invoke rather than an SQS event source: an
 * event source starts at five concurrent invocations and adds up to 300 a minute (Lambda
 * developer guide, "SQS scaling"), about 23 s before 120 frames render at once, while a
 * function's own scaling adds 1,000 execution environments every 10 s. Lambda's internal
 * queue keeps the bounded concurrency (the reserved concurrency: events past it wait and
 * are retried for up to six hours), retries a failed chunk, and sends what it gave up on
 * to the dead-letter queue, which is alarmed like the function's throttles.
 */
export class RenderFunction extends Construct {
  readonly fn: lambda.DockerImageFunction;
  /**
   * What the launchers invoke: the alias of the function's published version. SnapStart restores environments of
   * published versions only ("You can use SnapStart only on published function versions and aliases that point to
   * versions", Lambda developer guide, SnapStart), so the retries and the dead-letter queue are the alias's too: an
   * asynchronous invocation's settings are per version or alias.
   */
  readonly alias: lambda.Alias;
  readonly deadLetters: sqs.Queue;
  readonly logGroup: logs.LogGroup;
  readonly concurrency: number;
  /** Its /tmp, MB: the launcher sends a video whose finishing step would not fit to Batch. */
  readonly storageMb: number;

  constructor(scope: Construct, id: string, props: RenderFunctionProps) {
    super(scope, id);
    this.concurrency = props.reservedConcurrency;
    this.storageMb = (props.snapStart ? SNAPSTART_EPHEMERAL_STORAGE : EPHEMERAL_STORAGE).toMebibytes();
    this.logGroup = new logs.LogGroup(this, 'Logs', { retention: logs.RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    this.deadLetters = new sqs.Queue(this, 'DeadLetters', { retentionPeriod: Duration.days(14), enforceSSL: true });
    this.fn = renderImageFunction(this, {
      image: props.worker.image,
      architecture: props.worker.architecture,
      step: 'function',
      memorySize: RENDER_FUNCTION.memoryMiB,
      timeout: Duration.seconds(RENDER_FUNCTION.timeoutSeconds),
      ...snapStartSettings(props.snapStart, EPHEMERAL_STORAGE),
      reservedConcurrentExecutions: props.reservedConcurrency,
      logGroup: this.logGroup,
      // A worker's deadlines and retries (adapters/clients.ts), as the Batch tasks': a frame's or a segment's upload is not an API request.
      environment: { ...props.environment, CALL_BUDGET: 'worker', WORKER_SESSION_FUNCTION: props.sessionBroker.functionName, RENDER_THREADS: String(RENDER_FUNCTION.vcpus) },
      description: 'Renders one chunk of a job (or finishes an animation) from the worker image',
    });
    this.alias = new lambda.Alias(this, 'Live', {
      aliasName: 'live',
      version: this.fn.currentVersion,
      retryAttempts: FUNCTION_RETRY_ATTEMPTS,
      // An event may wait this long, across a deploy: the runtime still reads one sent under an older name of its step (render/lambda-runtime.ts, invocationOf).
      maxEventAge: Duration.hours(6),
      onFailure: new destinations.SqsDestination(this.deadLetters),
    });
    if (props.snapStart) keepVersionActive(this, this.alias, { step: 'keep-active' });
    // The function is a worker like the Batch tasks: it holds no data rights of its own and may only ask the
    // session broker for the credentials of the job whose ticket its invocation carries.
    props.sessionBroker.grantInvoke(this.fn);
  }

  /** Invoking the function: the launcher sends each chunk (and the finishing step) as its own asynchronous event. */
  grantSubmit(grantee: iam.IGrantable): void {
    this.alias.grantInvoke(grantee);
  }

  /** The settings the API needs to send renders to the function (core/config.ts reads them): the alias's ARN, which Invoke takes as its FunctionName. */
  get submitEnvironment(): Record<string, string> {
    return { RENDER_FUNCTION_NAME: this.alias.functionArn, RENDER_FUNCTION_CONCURRENCY: String(this.concurrency), RENDER_FUNCTION_STORAGE_MB: String(this.storageMb) };
  }
}
