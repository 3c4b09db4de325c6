import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import type { Storage } from './storage';
import { repoRoot } from '../paths';

/** The container's name in the task definition, which RunTask's overrides refer to. */
export const RENDER_CONTAINER_NAME = 'worker';

export interface RenderServiceProps {
  storage: Storage;
  /** Server settings the worker reads through core/config.ts. */
  environment: Record<string, string>;
  cpu: number;
  memoryMiB: number;
  architecture: 'x86_64' | 'arm64';
}

/**
 * The render service: one Fargate task per job, started by the API with RunTask.
 *
 * Networking is chosen for cost: a VPC with public subnets only and no NAT gateway
 * (a NAT gateway costs more per month than many renders). Tasks get a public IP to
 * pull their image, and reach S3 and DynamoDB through free gateway endpoints. The
 * security group admits no inbound traffic.
 */
export class RenderService extends Construct {
  readonly vpc: ec2.Vpc;
  readonly cluster: ecs.Cluster;
  readonly securityGroup: ec2.SecurityGroup;
  readonly taskDefinition: ecs.FargateTaskDefinition;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: RenderServiceProps) {
    super(scope, id);

    this.vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 2,
      natGateways: 0,
      subnetConfiguration: [{ name: 'public', subnetType: ec2.SubnetType.PUBLIC, cidrMask: 24 }],
      gatewayEndpoints: {
        S3: { service: ec2.GatewayVpcEndpointAwsService.S3 },
        DynamoDB: { service: ec2.GatewayVpcEndpointAwsService.DYNAMODB },
      },
    });
    this.securityGroup = new ec2.SecurityGroup(this, 'TaskSecurityGroup', {
      vpc: this.vpc,
      description: 'Render tasks: outbound only',
      allowAllOutbound: true,
    });
    this.cluster = new ecs.Cluster(this, 'Cluster', { vpc: this.vpc });

    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });

    const arm = props.architecture === 'arm64';
    this.taskDefinition = new ecs.FargateTaskDefinition(this, 'Task', {
      cpu: props.cpu,
      memoryLimitMiB: props.memoryMiB,
      ephemeralStorageGiB: 30,
      runtimePlatform: {
        cpuArchitecture: arm ? ecs.CpuArchitecture.ARM64 : ecs.CpuArchitecture.X86_64,
        operatingSystemFamily: ecs.OperatingSystemFamily.LINUX,
      },
    });
    this.taskDefinition.addContainer('Worker', {
      containerName: RENDER_CONTAINER_NAME,
      // Built by `cdk deploy` from render/Dockerfile with the repository as context
      // (.dockerignore keeps it to the worker's sources); synth only hashes it.
      image: ecs.ContainerImage.fromAsset(repoRoot, {
        file: 'render/Dockerfile',
        platform: arm ? Platform.LINUX_ARM64 : Platform.LINUX_AMD64,
      }),
      environment: { ...props.environment, AWS_REGION: Stack.of(this).region },
      logging: ecs.LogDrivers.awsLogs({ logGroup: this.logGroup, streamPrefix: 'job' }),
      essential: true,
    });

    // The task reads its inputs (and deletes them once processed, as the About
    // page promises), writes and lists outputs (a resumed job renders only the
    // missing frames) and updates its job item. (Its e-mail rights are granted by
    // the stack, which owns the mail identity.)
    const { table, uploadsBucket, outputsBucket } = props.storage;
    const taskRole = this.taskDefinition.taskRole;
    table.grantReadWriteData(taskRole);
    uploadsBucket.grantRead(taskRole);
    uploadsBucket.grantDelete(taskRole);
    outputsBucket.grantReadWrite(taskRole);
  }

  /** RunTask of this task definition in this cluster only, and passing its two roles to ECS. */
  grantRun(grantee: iam.IGrantable): void {
    const principal = grantee.grantPrincipal;
    principal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['ecs:RunTask'],
        resources: [this.taskDefinition.taskDefinitionArn],
        conditions: { ArnEquals: { 'ecs:cluster': this.cluster.clusterArn } },
      }),
    );
    principal.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [this.taskDefinition.taskRole.roleArn, this.taskDefinition.obtainExecutionRole().roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } },
      }),
    );
  }

  /** The settings the API needs to start a task (core/config.ts reads them). */
  get runEnvironment(): Record<string, string> {
    return {
      RENDER_MODE: 'ecs',
      RENDER_CLUSTER_ARN: this.cluster.clusterArn,
      RENDER_TASK_DEFINITION_ARN: this.taskDefinition.taskDefinitionArn,
      RENDER_SUBNET_IDS: this.vpc.publicSubnets.map((subnet) => subnet.subnetId).join(','),
      RENDER_SECURITY_GROUP_ID: this.securityGroup.securityGroupId,
      RENDER_CONTAINER_NAME,
    };
  }
}
