/**
 * The probe role: the media probe function (RENDER_STEP=probe, infra/constructs/media-probe.ts). The same image
 * measures one upload per invocation for the API, through the presigned URL the API sends (render/probe-step.ts,
 * composition/server.ts's measureUploadHere), with no credentials and no job, and renders nothing.
 */
import { measureUploadHere } from '#composition/server';
import { serveInvocationsApart, serveOneInvocation } from '../lambda-runtime';
import { runProbe } from '../probe-step';
import { clearingBetweenInvocations, serveFunction } from './common';

export function main(): Promise<never> {
  return serveFunction({
    environment: (runtimeApi) => serveInvocationsApart(runtimeApi, {}, clearingBetweenInvocations()),
    invocation: (runtimeApi) => serveOneInvocation(runtimeApi, (event) => runProbe(event, measureUploadHere)),
  });
}
