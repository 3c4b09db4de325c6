/**
 * X-Ray for the Lambda entry points (Powertools' Tracer). Each invocation gets a
 * subsegment named after what it serves, annotated with the job id once one is known,
 * so the X-Ray console finds every trace of a job (`annotation.jobId = "..."`).
 * Outgoing HTTPS calls (the AWS SDK's, Stripe's, webhooks) become subsegments by
 * themselves. Outside Lambda (the local stack, tests, the render worker) the Tracer
 * is off and this only runs `work`.
 *
 * Kept apart from the logger and the metrics so the render worker's bundle does not
 * carry the X-Ray SDK: its containers have no X-Ray daemon; the job id and the trace
 * id it is handed link its lines to the trace instead.
 */
import { Tracer } from '@aws-lambda-powertools/tracer';
import { currentLogScope, SERVICE_NAME } from './logger';

let instance: Tracer | undefined;
function tracer(): Tracer {
  instance ??= new Tracer({ serviceName: process.env.POWERTOOLS_SERVICE_NAME ?? SERVICE_NAME });
  return instance;
}

/** Runs one invocation's work inside its own subsegment; errors are recorded on it and thrown on. */
export async function traced<T>(name: string, work: () => Promise<T>): Promise<T> {
  const t = tracer();
  if (!t.isTracingEnabled()) return work();
  const parent = t.getSegment();
  const segment = parent?.addNewSubsegment(`## ${name}`);
  if (segment) t.setSegment(segment);
  t.annotateColdStart();
  t.addServiceNameAnnotation();
  try {
    return await work();
  } catch (error) {
    t.addErrorAsMetadata(error as Error);
    throw error;
  } finally {
    const { jobId } = currentLogScope();
    if (jobId) t.putAnnotation('jobId', jobId);
    segment?.close();
    if (parent) t.setSegment(parent);
  }
}
