import { RemovalPolicy } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

export interface RenderImageFunctionProps extends Omit<lambda.DockerImageFunctionProps, 'code' | 'architecture' | 'environment' | 'logGroup' | 'tracing'> {
  /** The render image (render/Dockerfile, the render function's asset, built once) and its processor. */
  image: lambda.DockerImageCode;
  architecture: lambda.Architecture;
  /** The role the image runs as (RENDER_STEP; render/worker.ts starts render/entries/<role>.ts): the render function, the probe or the previews. */
  step: 'function' | 'probe' | 'preview';
  /** The settings core/config.ts requires at start, and the step's own. */
  environment: Record<string, string>;
  /** Its logs, kept a month. */
  logGroup?: logs.ILogGroup;
}

/**
 * A function of the render image (the render function, the media probe, the live previews): every one keeps its
 * logs a month and is traced, so X-Ray has Lambda's own segments (Init, Invoke) of every invocation; a chunk's
 * steps are metrics (observability/metrics.ts, CHUNK_STEPS).
 */
export function renderImageFunction(scope: Construct, props: RenderImageFunctionProps): lambda.DockerImageFunction {
  const { image, step, environment, logGroup, ...settings } = props;
  return new lambda.DockerImageFunction(scope, 'Function', {
    ...settings,
    code: image,
    logGroup: logGroup ?? new logs.LogGroup(scope, 'Logs', { retention: logs.RetentionDays.ONE_MONTH, removalPolicy: RemovalPolicy.DESTROY }),
    environment: { ...environment, RENDER_STEP: step },
    tracing: lambda.Tracing.ACTIVE,
  });
}
