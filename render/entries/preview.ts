/**
 * The preview role: the live preview function (RENDER_STEP=preview, infra/constructs/live-previews.ts). One live
 * preview (or a warm-up) per invocation, rendered by warm scene servers the environment keeps between invocations
 * (render/preview-step.ts); each invocation in a process of its own, where the upload's presigned URL stays.
 */
import { downloadUpload } from '#composition/server';
import { answerOver, askOver, invocationChannel, runtimeLoopChannel, serveInvocationsApart, serveOneInvocation, type InvocationChannel } from '../lambda-runtime';
import { previewInvocation, previewJob, renderPreview, type UploadDownload } from '../preview-step';
import { WarmScenes } from '../warm-scene';
import { clearingBetweenInvocations, loadDenoisersDuringInit, serveFunction, snapshotOf, threadsOf } from './common';

/** The copy of a preview the runtime loop is given: the job, its upload named by its key alone. */
const previewWithoutUrl = previewJob.extend({ input: previewJob.shape.input.unwrap().omit({ url: true }).optional() });

export function main(): Promise<never> {
  return serveFunction({ environment: serveTheEnvironment, invocation: (runtimeApi) => serveOneInvocation(runtimeApi, (event) => previewApart(event, runtimeLoopChannel())) });
}

/** The runtime loop: its warm scene servers render every invocation's preview; its pictures use the fast denoiser only. */
async function serveTheEnvironment(runtimeApi: string): Promise<never> {
  await loadDenoisersDuringInit(['fast']);
  const servers = new WarmScenes({ threads: threadsOf() });
  const clear = clearingBetweenInvocations(servers);
  const restore = await snapshotOf(servers, clear);
  return serveInvocationsApart(runtimeApi, { restore, serve: (child) => answerOver(invocationChannel(child), (question) => previewForInvocation(question, servers, invocationChannel(child))) }, clear);
}

/**
 * A preview's invocation process: the runtime loop renders it by its warm servers, from a copy of the job that names the
 * upload's key alone; the upload's presigned URL stays here, and this process reads the upload into the file the render
 * asks for. A warm-up names a scene and nothing else: the loop reads it as it comes.
 */
async function previewApart(event: unknown, loop: InvocationChannel): Promise<unknown> {
  if ((event as { step?: unknown } | null)?.step === 'warm') return askOver(loop, { preview: event });
  const job = previewJob.parse(event);
  const { input } = job;
  const stopAnswering = answerOver(loop, async (question) => {
    const { download } = question as { download: DownloadArguments };
    if (!input) throw new Error('This preview has no upload to read');
    await downloadUpload(input, ...download);
  });
  try {
    return await askOver(loop, { preview: { ...job, input: input && { ...input, url: undefined } } });
  } finally {
    stopAnswering();
  }
}

/** What renderPreview hands its download besides the upload: the file, its most bytes and its deadline. */
type DownloadArguments = Parameters<UploadDownload> extends [unknown, ...infer Rest] ? Rest : never;

/** The runtime loop's side of previewApart: a warm-up, or a preview whose upload the invocation's process reads. */
function previewForInvocation(question: unknown, servers: WarmScenes, invocation: InvocationChannel): Promise<unknown> {
  const { preview } = question as { preview: unknown };
  const download: UploadDownload = (_upload, ...rest) => askOver(invocation, { download: rest }).then(() => undefined);
  if ((preview as { step?: unknown } | null)?.step === 'warm') return previewInvocation(preview, servers, download);
  const job = previewWithoutUrl.parse(preview);
  // renderPreview hands `input` to the download and reads nothing of it but the key: the URL is the invocation's.
  return renderPreview({ ...job, input: job.input && { ...job.input, url: '' } }, servers, download);
}
