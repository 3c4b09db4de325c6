import { Duration, RemovalPolicy, Size, Stack } from 'aws-cdk-lib';
import * as batch from 'aws-cdk-lib/aws-batch';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { UPLOADS_PREFIX, type Storage } from './storage';
import { ServerFunction } from './server-function';
import { repoRoot } from '../paths';

export interface RenderFarmProps {
  storage: Storage;
  /** Server settings the worker reads through core/config.ts. */
  environment: Record<string, string>;
  /** CPU units (1,024 a vCPU) and memory of each chunk worker (Fargate's CPU/memory pairs). */
  cpu: number;
  memoryMiB: number;
  architecture: 'x86_64' | 'arm64';
  /** The farm's ceiling: vCPUs of all workers at once, per compute environment. */
  maxVcpus: number;
}

/** The worker asks for another attempt with this exit code (render/entries/common.ts). */
export const WORKER_RETRY_EXIT_CODE = '75';
/** Attempts per chunk, the first included: Spot reclaims and lost hosts are retried, a user's bad input is not (it exits 0). */
export const RENDER_ATTEMPTS = 3;
/** A chunk is sized to about 90 s and Blender stops itself at 4x its estimate; this is the backstop. */
export const CHUNK_TIMEOUT = Duration.hours(2);
/** The finishing step streams every frame of the job through ffmpeg once. */
export const FINISH_TIMEOUT = Duration.hours(3);

/**
 * The render farm: AWS Batch on Fargate. A job's chunks are one array job (a child
 * per chunk, AWS_BATCH_JOB_ARRAY_INDEX picking it), and a finishing job depends on the
 * whole array. The job queue tries the Fargate Spot compute environment first and
 * the on-demand one when Spot is at its ceiling.
 *
 * Networking is chosen for cost: a VPC with public subnets only and no NAT gateway
 * (a NAT gateway costs more per month than many renders). Workers get a public IP to
 * pull their image, reach S3 and DynamoDB through free gateway endpoints, and admit
 * no inbound traffic.
 */
export class RenderFarm extends Construct {
  readonly vpc: ec2.Vpc;
  readonly securityGroup: ec2.SecurityGroup;
  readonly jobQueue: batch.JobQueue;
  readonly spot: batch.FargateComputeEnvironment;
  readonly onDemand: batch.FargateComputeEnvironment;
  readonly renderJob: batch.EcsJobDefinition;
  readonly finishJob: batch.EcsJobDefinition;
  /** The role the workers' tasks run as: it may only call the session broker. */
  readonly jobRole: iam.Role;
  /** Gives a worker the scope role's credentials for the job its farm ticket was issued for (lambdas/farm/worker-session.ts). */
  readonly sessionBroker: ServerFunction;
  /** The role a worker takes for its one job, narrowed by session tags (jobId, userId) and a session policy. */
  readonly jobScopeRole: iam.Role;
  readonly executionRole: iam.Role;
  readonly logGroup: logs.LogGroup;
  /** Chunk workers that fit under the ceiling at once: the queue's wait is estimated from it. */
  readonly workersAtOnce: number;

  constructor(scope: Construct, id: string, props: RenderFarmProps) {
    super(scope, id);
    // cpu is in Fargate's CPU units (1,024 a vCPU) and the ceiling in vCPUs: 256 vCPUs hold 128 workers of 2,048 units.
    this.workersAtOnce = Math.max(1, Math.floor(props.maxVcpus / (props.cpu / 1024)));

    this.vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 }],
      gatewayEndpoints: {
        S3: { service: ec2.GatewayVpcEndpointAwsService.S3 },
        DynamoDB: { service: ec2.GatewayVpcEndpointAwsService.DYNAMODB },
      },
    });
    this.securityGroup = new ec2.SecurityGroup(this, 'WorkerSecurityGroup', { vpc: this.vpc, description: 'Render workers: outbound only', allowAllOutbound: true });

    const computeEnvironment = (name: string, spot: boolean) =>
      new batch.FargateComputeEnvironment(this, name, {
        vpc: this.vpc,
        vpcSubnets: { subnetType: ec2.SubnetType.PUBLIC },
        securityGroups: [this.securityGroup],
        spot,
        maxvCpus: props.maxVcpus,
      });
    this.spot = computeEnvironment('Spot', true);
    this.onDemand = computeEnvironment('OnDemand', false);
    this.jobQueue = new batch.JobQueue(this, 'Queue', {
      computeEnvironments: [
        { computeEnvironment: this.spot, order: 1 },
        { computeEnvironment: this.onDemand, order: 2 },
      ],
    });

    this.logGroup = new logs.LogGroup(this, 'Logs', { retention: logs.RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY });
    this.jobRole = new iam.Role(this, 'WorkerRole', { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com'), description: 'Render workers: may only ask the session broker for their job\'s credentials' });
    this.sessionBroker = new ServerFunction(this, 'SessionBroker', { entry: 'lambdas/farm/worker-session.ts', environment: props.environment, timeout: Duration.seconds(10) });
    this.jobScopeRole = this.scopeRole(props.storage, this.sessionBroker.fn.role!);
    this.sessionBroker.fn.addEnvironment('WORKER_SCOPE_ROLE_ARN', this.jobScopeRole.roleArn);
    // The broker is the workers' task server too (core/jobs/task-server.ts): it moves their jobs and chunks.
    props.storage.table.grantReadWriteData(this.sessionBroker.fn);
    this.jobRole.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.sessionBroker.fn.functionArn] }));
    this.executionRole = new iam.Role(this, 'ExecutionRole', { assumedBy: new iam.ServicePrincipal('ecs-tasks.amazonaws.com'), description: 'Pulls the worker image and writes its logs' });

    const arm = props.architecture === 'arm64';
    // Built by `cdk deploy` from render/Dockerfile with the repository as context
    // (.dockerignore keeps it to the worker's sources); synth only hashes it.
    const image = ecs.ContainerImage.fromAsset(repoRoot, { file: 'render/Dockerfile', platform: arm ? Platform.LINUX_ARM64 : Platform.LINUX_AMD64 });
    // RENDER_STEP is the role the image runs (render/worker.ts starts render/entries/<role>.ts).
    const container = (name: string, step: 'chunk' | 'finish') =>
      new batch.EcsFargateContainerDefinition(this, name, {
        image,
        cpu: props.cpu / 1024,
        memory: Size.mebibytes(props.memoryMiB),
        assignPublicIp: true,
        ephemeralStorageSize: Size.gibibytes(30),
        fargateCpuArchitecture: arm ? ecs.CpuArchitecture.ARM64 : ecs.CpuArchitecture.X86_64,
        fargateOperatingSystemFamily: ecs.OperatingSystemFamily.LINUX,
        jobRole: this.jobRole,
        executionRole: this.executionRole,
        environment: { ...props.environment, AWS_REGION: Stack.of(this).region, CALL_BUDGET: 'worker', RENDER_STEP: step, WORKER_SESSION_FUNCTION: this.sessionBroker.fn.functionName },
        logging: ecs.LogDrivers.awsLogs({ logGroup: this.logGroup, streamPrefix: step }),
      });
    // Retried: the worker's own request (its chunk failed on our side and is pending
    // again), a reclaimed Fargate Spot task, a lost host, an image pull that failed.
    // Anything else ends the attempt: a user's bad input has already failed the job.
    const retryStrategies = [
      batch.RetryStrategy.of(batch.Action.RETRY, batch.Reason.custom({ onExitCode: WORKER_RETRY_EXIT_CODE })),
      batch.RetryStrategy.of(batch.Action.RETRY, batch.Reason.custom({ onStatusReason: 'Your Spot Task was interrupted*' })),
      batch.RetryStrategy.of(batch.Action.RETRY, batch.Reason.SPOT_INSTANCE_RECLAIMED),
      batch.RetryStrategy.of(batch.Action.RETRY, batch.Reason.CANNOT_PULL_CONTAINER),
      batch.RetryStrategy.of(batch.Action.EXIT, batch.Reason.custom({ onReason: '*' })),
    ];
    this.renderJob = new batch.EcsJobDefinition(this, 'RenderJob', {
      container: container('RenderContainer', 'chunk'),
      retryAttempts: RENDER_ATTEMPTS,
      retryStrategies,
      timeout: CHUNK_TIMEOUT,
      propagateTags: true,
    });
    this.finishJob = new batch.EcsJobDefinition(this, 'FinishJob', {
      container: container('FinishContainer', 'finish'),
      retryAttempts: RENDER_ATTEMPTS,
      retryStrategies,
      timeout: FINISH_TIMEOUT,
      propagateTags: true,
    });

    this.logGroup.grantWrite(this.executionRole);
  }

  /**
   * Batch job roles are static, so the per-job scope is a second role, and the
   * worker never takes it itself: the session broker (trusted server code) takes it
   * for the job whose farm ticket the worker shows, with the session tags jobId and
   * userId from the job item (core/jobs/worker-sessions.ts), and the role's
   * permissions are written against those tags. Only the broker's role may assume
   * it, so no worker can name a job of its choosing. A worker's session reaches:
   * - no item of the table: it asks the broker, which checks the ticket, to move
   *   its job and chunks (core/jobs/task-server.ts), so status, attempts, the
   *   active-jobs index and the outputs are written by server code alone;
   * - users/<its user>/jobs/<its job>/ in the outputs bucket (read, write, delete,
   *   list under that prefix);
   * - uploads/<its user>/ in the uploads bucket, read and delete, which the session
   *   policy the broker adds narrows to the job's one input key;
   * and nothing else: no e-mail, no other service.
   */
  private scopeRole(storage: Storage, broker: iam.IRole): iam.Role {
    const jobId = '${aws:PrincipalTag/jobId}';
    const userId = '${aws:PrincipalTag/userId}';
    const role = new iam.Role(this, 'WorkerJobScopeRole', {
      assumedBy: new iam.PrincipalWithConditions(new iam.SessionTagsPrincipal(new iam.ArnPrincipal(broker.roleArn)), {
        // Both tags and no other: the role's policy is meaningless without them. Their values come from the job item.
        Null: { 'aws:RequestTag/jobId': 'false', 'aws:RequestTag/userId': 'false' },
        'ForAllValues:StringEquals': { 'aws:TagKeys': ['jobId', 'userId'] },
      }),
      description: 'A render worker for one job: its outputs prefix and its input (session tags jobId, userId set by the session broker)',
      // A role taken from another role's session is capped at one hour; the worker asks the broker again.
      maxSessionDuration: Duration.hours(1),
    });
    broker.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['sts:AssumeRole', 'sts:TagSession'], resources: [role.roleArn] }));
    const { uploadsBucket, outputsBucket } = storage;
    role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'OwnJobOutputs',
        actions: ['s3:GetObject', 's3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'],
        resources: [outputsBucket.arnForObjects(`users/${userId}/jobs/${jobId}/*`)],
      }),
    );
    role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'ListOwnJobOutputs',
        actions: ['s3:ListBucket'],
        resources: [outputsBucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`users/${userId}/jobs/${jobId}/*`] } },
      }),
    );
    role.addToPolicy(
      new iam.PolicyStatement({
        sid: 'OwnUserInputs',
        actions: ['s3:GetObject', 's3:DeleteObject'],
        resources: [uploadsBucket.arnForObjects(`${UPLOADS_PREFIX}${userId}/*`)],
      }),
    );
    return role;
  }

  /**
   * SubmitJob to this queue with these two definitions only (array children and dependencies need nothing more).
   * The launcher tags each job with its jobId at submit (adapters/batch-farm.ts), and Batch authorises tags given
   * at create as batch:TagResource on the new job: without it every submit is refused. Jobs only, and with no
   * condition: which tag keys Batch evaluates on a submit (the request's, or also those a definition's
   * propagateTags brings) is not documented, and a condition that missed one would refuse every submit again.
   * Tags on jobs decide nothing here but cost reports.
   */
  grantSubmit(grantee: iam.IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['batch:SubmitJob'],
        resources: [this.jobQueue.jobQueueArn, this.renderJob.jobDefinitionArn, this.finishJob.jobDefinitionArn],
      }),
    );
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['batch:TagResource'],
        resources: [Stack.of(this).formatArn({ service: 'batch', resource: 'job', resourceName: '*' })],
      }),
    );
  }

  /** Terminate the farm's jobs of an abandoned render (adapters/render-launcher.ts, cancelRender). Batch job ids are made at submit, hence job/*. */
  grantCancel(grantee: iam.IGrantable): void {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['batch:TerminateJob'], resources: [Stack.of(this).formatArn({ service: 'batch', resource: 'job', resourceName: '*' })] }),
    );
  }

  /**
   * The stale-job sweep admits jobs waiting for their user's render slots, and asks
   * Batch whether a silent queued job is still waiting for capacity. DescribeJobs
   * has no resource-level permissions, hence its '*'.
   */
  grantSweep(grantee: iam.IGrantable): void {
    this.grantSubmit(grantee);
    grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['batch:DescribeJobs'], resources: ['*'] }));
  }

  /** The settings the API needs to submit renders (core/config.ts reads them). */
  get submitEnvironment(): Record<string, string> {
    return {
      RENDER_MODE: 'batch',
      RENDER_JOB_QUEUE: this.jobQueue.jobQueueArn,
      RENDER_JOB_DEFINITION: this.renderJob.jobDefinitionArn,
      FINISH_JOB_DEFINITION: this.finishJob.jobDefinitionArn,
      RENDER_FARM_WORKERS: String(this.workersAtOnce),
    };
  }
}
