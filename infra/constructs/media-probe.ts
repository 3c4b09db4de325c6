import { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { renderImageFunction } from './render-image-function';

export interface MediaProbeProps {
  /** The settings core/config.ts requires at start (names of the table and buckets: no rights come with them). */
  environment: Record<string, string>;
  /** The render function's image and processor (RenderFunction.image, .architecture). */
  image: lambda.DockerImageCode;
  architecture: lambda.Architecture;
  /** Probes running at once, across every user (the probeConcurrency setting). */
  reservedConcurrency: number;
}

/**
 * Measuring an upload's duration on AWS: the render image has ffmpeg, so the same image
 * (render/Dockerfile; the asset is the render function's, built once) runs as a small
 * function that the job-creating API functions invoke synchronously (adapters/media-probe.ts).
 *
 * A function of its own rather than a kind of request to the render function: its role
 * grants nothing (it reads the one upload through the presigned URL the API sends, after
 * checking the key is the caller's), so the render function's reach is unchanged and the
 * probe never holds a job's credentials; and it does not wait behind renders in the render
 * function's reserved concurrency while a user waits for "Create". Nothing runs while idle.
 */
export class MediaProbe extends Construct {
  readonly fn: lambda.DockerImageFunction;

  constructor(scope: Construct, id: string, props: MediaProbeProps) {
    super(scope, id);
    this.fn = renderImageFunction(this, {
      image: props.image,
      architecture: props.architecture,
      step: 'probe',
      // ffprobe reads a header and an upload of at most 50 MB; 1 GB gives it a fair share of a CPU.
      memorySize: 1024,
      // The download and ffprobe have 7 s each (adapters/media-probe.ts); with a cold start (Init, at most 10 s) inside the API's 25-s wait.
      timeout: Duration.seconds(15),
      // Its own share of the account's concurrency, and no more: one user's batch of audio rows cannot take the
      // renders' or the API's (the API measures a batch's uploads a few at a time, each upload once).
      reservedConcurrentExecutions: props.reservedConcurrency,
      environment: props.environment,
      description: "Measures an uploaded audio file's duration with ffprobe, from the render image",
    });
  }

  /** Invoking the probe, and where it is (core/config.ts: MEDIA_PROBE_FUNCTION). */
  grantProbe(grantee: iam.IGrantable & { addEnvironment(key: string, value: string): unknown }): void {
    // The function itself, not its versions or aliases (there are none).
    grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.fn.functionArn] }));
    grantee.addEnvironment('MEDIA_PROBE_FUNCTION', this.fn.functionName);
  }
}
