import { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { renderImageFunction } from './render-image-function';
import { keepVersionActive, snapStartSettings } from './render-function';

export interface LivePreviewsProps {
  /** The settings core/config.ts requires at start (names only: no rights come with them). */
  environment: Record<string, string>;
  /** The render function's image and processor (RenderFunction.image, .architecture). */
  image: lambda.DockerImageCode;
  architecture: lambda.Architecture;
  /** Environments kept initialised (the previewProvisionedConcurrency setting; 0: none, nothing billed while idle). */
  provisionedConcurrency: number;
  /** SnapStart on published versions (the snapStart setting; never with provisioned concurrency, which it does not support). */
  snapStart: boolean;
  /** Previews rendering at once, across every customer (the previewConcurrency setting). */
  reservedConcurrency: number;
}

/**
 * One invocation's limit: a cold environment starts Blender and renders the scene's defaults (about 6 s of one vCPU
 * here), then the preview. The API holds a customer's turn this long when it stopped waiting for an invocation
 * (core/previews/preview-flights.ts): it is told the figure (grantPreview), so the two cannot drift.
 */
export const PREVIEW_TIMEOUT_SECONDS = 20;

/**
 * One vCPU's share (Lambda gives 1 vCPU per 1,769 MB): a preview's forked child renders on one
 * core (render/warm-scene.ts); the warm server with one child fits in about 600 MB, and the
 * denoiser (loaded during Init) takes about 240 MB more for a preview's frame (measured).
 * Animation mode's strip of 8 frames took 2.37 s by one child and 1.80 s by two side by side
 * (bench:delivery, 29 November 2026, medians of 5): two vCPUs would save half a second of a strip
 * well inside the API's wait, for 1.6 times its GB-seconds, twice every still preview's (one
 * child) and twice the snapshot cache. One vCPU it stays.
 */
export const PREVIEW_MEMORY_MB = 1769;

/**
 * The live previews on AWS (render/preview-step.ts): the render image (render/Dockerfile; the
 * render function's asset, built once) with RENDER_STEP=preview (render/entries/preview.ts), invoked synchronously by the
 * API functions (adapters/preview-function.ts) with a 5-s deadline. An environment keeps its
 * warm scene servers between invocations (they are not dumpable; everything else an invocation
 * left is cleared: render/lambda-runtime.ts). Its role grants nothing: the upload comes as a
 * presigned GET for its key alone, the picture goes back in the answer.
 */
export class LivePreviews extends Construct {
  readonly fn: lambda.DockerImageFunction;
  /** What the API invokes: the alias of the function's published version (its snapshot, or its provisioned environments). */
  readonly target: lambda.Alias;

  /** Previews rendering at once, across every customer (the function's reserved executions). */
  private readonly reservedConcurrency: number;

  constructor(scope: Construct, id: string, props: LivePreviewsProps) {
    super(scope, id);
    this.reservedConcurrency = props.reservedConcurrency;
    this.fn = renderImageFunction(this, {
      image: props.image,
      architecture: props.architecture,
      step: 'preview',
      memorySize: PREVIEW_MEMORY_MB,
      timeout: Duration.seconds(PREVIEW_TIMEOUT_SECONDS),
      reservedConcurrentExecutions: props.reservedConcurrency,
      environment: { ...props.environment, RENDER_THREADS: '1' },
      description: 'Live previews of a customer\'s scene from warm Blender scene servers, from the render image',
      ...snapStartSettings(props.snapStart),
    });
    if (props.snapStart && props.provisionedConcurrency > 0) throw new Error('SnapStart does not support provisioned concurrency: previewProvisionedConcurrency must be 0 with snapStart');
    // A published version: SnapStart restores environments of versions only, provisioned concurrency keeps them.
    this.target = new lambda.Alias(this, 'Live', {
      aliasName: 'live',
      version: this.fn.currentVersion,
      ...(props.provisionedConcurrency > 0 ? { provisionedConcurrentExecutions: props.provisionedConcurrency } : {}),
    });
    // The warm-up of a scene whose server the snapshot holds: nothing to do but keep the version active.
    if (props.snapStart) keepVersionActive(this, this.target, { step: 'warm', sceneId: 1 });
  }

  /**
   * Invoking the previews, where they are, and what the API shares out (core/config.ts: PREVIEW_FUNCTION, and
   * PREVIEW_TIMEOUT_SECONDS and PREVIEW_CONCURRENCY, from which it holds turns and counts the visitors' share).
   */
  grantPreview(grantee: iam.IGrantable & { addEnvironment(key: string, value: string): unknown }): void {
    grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.target.functionArn] }));
    grantee.addEnvironment('PREVIEW_FUNCTION', this.target.functionArn);
    grantee.addEnvironment('PREVIEW_TIMEOUT_SECONDS', String(PREVIEW_TIMEOUT_SECONDS));
    grantee.addEnvironment('PREVIEW_CONCURRENCY', String(this.reservedConcurrency));
  }
}
