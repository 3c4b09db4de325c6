import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { fromRoot, repoRoot } from '../paths';

export interface ServerFunctionProps {
  /** Entry file relative to the repository root, exporting `handler`. */
  entry: string;
  environment: Record<string, string>;
  timeout?: Duration;
  memorySize?: number;
}

/**
 * One Lambda function of the product, bundled by esbuild from TypeScript. The log
 * group is part of the stack (retention, metric filters, removed with the stack).
 * The function's description is its entry file, so a reader of the console or of
 * the template knows which source file runs.
 */
export class ServerFunction extends Construct {
  readonly fn: NodejsFunction;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: ServerFunctionProps) {
    super(scope, id);
    this.logGroup = new logs.LogGroup(this, 'Logs', {
      retention: logs.RetentionDays.ONE_MONTH,
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.fn = new NodejsFunction(this, 'Function', {
      entry: fromRoot(props.entry),
      handler: 'handler',
      description: props.entry,
      projectRoot: repoRoot,
      depsLockFilePath: fromRoot('package-lock.json'),
      runtime: lambda.Runtime.NODEJS_24_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.seconds(15),
      logGroup: this.logGroup,
      // X-Ray: observability/tracing.ts adds a subsegment per request (annotated with the job id) under the function's segment.
      tracing: lambda.Tracing.ACTIVE,
      environment: { ...props.environment, NODE_OPTIONS: '--enable-source-maps' },
      bundling: {
        format: OutputFormat.ESM,
        target: 'node24',
        minify: true,
        sourceMap: true,
        // Stack traces need only the mappings; the sources would triple the upload.
        sourcesContent: false,
        // Prefer the ESM builds of dependencies, so esbuild can drop what is unused.
        mainFields: ['module', 'main'],
        // CommonJS dependencies inside an ESM bundle still call require().
        banner: "import { createRequire as bannerCreateRequire } from 'node:module'; const require = bannerCreateRequire(import.meta.url);",
        // The SDK is bundled at the version package-lock.json pins (the runtime's
        // copy lacks some packages we use, e.g. the presigned POST helper).
        bundleAwsSDK: true,
        // Only the local render pool loads esbuild (to bundle the local worker); never on Lambda.
        externalModules: ['esbuild'],
      },
    });
  }
}
