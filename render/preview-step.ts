/**
 * The live preview of a customer's scene (POST /api/previews): one small picture of their own
 * settings, rendered by a warm scene's forked child (render/warm-scene.ts). No job, no ledger
 * entry, no file kept. The local stack runs it in the API's process; on AWS the preview
 * function (RENDER_STEP=preview, the render image) runs it per invocation. Either entry point gives it
 * the way to read the customer's upload (composition/server.ts's downloadUpload): the render image
 * imports no adapter.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { ACCEPTED_UPLOADS, getScene, requiredUploadKind } from '#shared/catalogue';
import { framePreviewFile } from '#shared/render-contract';
import { LIVE_PREVIEW } from '#shared/render-manifest';
import { RenderError } from './blender';
import { readOutput, WarmScenes } from './warm-scene';
import { sharedDenoiser } from './denoiser';
import { log } from '#observability/logger';
import { alignment } from '#shared/schemas';

/** The most audio a preview decodes: the still frame of an audio scene needs no more. */
const PREVIEW_AUDIO_SECONDS = 30;
/** A preview's JPEG is a few tens of kilobytes; anything larger is not ours. */
const MAX_PREVIEW_BYTES = 512 * 1024;
/** Reading the customer's upload, in the same Region as its storage. */
const INPUT_DOWNLOAD_MS = 5_000;

/** What the API sends: the settings (checked by the job's own schema there), and the upload as a presigned GET for its key alone. */
export const previewJob = z.strictObject({
  step: z.literal('preview'),
  sceneId: z.number().int(),
  customText: z.string().max(2000).optional(),
  options: z.string().max(4000),
  alignment: alignment.optional(),
  resolutionX: z.number().int().positive(),
  resolutionY: z.number().int().positive(),
  input: z.strictObject({ key: z.string().min(1).max(1024), url: z.string().url() }).optional(),
});
export type PreviewJob = z.infer<typeof previewJob>;

/**
 * Reads the customer's upload through the presigned GET the API sent into `file`: no more than `maxBytes`,
 * within `deadlineMs` (the preview holds no storage rights of its own).
 */
export type UploadDownload = (upload: { key: string; url: string }, file: string, maxBytes: number, deadlineMs: number) => Promise<void>;

/** The picture as base64 JPEG, or the customer's own error (their file cannot be rendered). */
export type PreviewResult = { image: string; renderMs: number } | { userError: string };

/** The preview's size: the customer's frame shape, its longer side the live preview's. */
export function previewSize(resolutionX: number, resolutionY: number): { x: number; y: number } {
  const factor = LIVE_PREVIEW.maxSide / Math.max(resolutionX, resolutionY);
  const even = (side: number) => Math.max(16, Math.round((side * Math.min(1, factor)) / 2) * 2);
  return { x: even(resolutionX), y: even(resolutionY) };
}

export async function renderPreview(job: PreviewJob, servers: WarmScenes, download: UploadDownload): Promise<PreviewResult> {
  const scene = getScene(job.sceneId);
  if (!scene) throw new Error(`Unknown scene ${job.sceneId}`);
  const kind = requiredUploadKind(scene);
  const dir = await mkdtemp(path.join(tmpdir(), 'preview-input-'));
  try {
    let inputFile: string | undefined;
    if (job.input && kind) {
      inputFile = path.join(dir, `input${path.extname(job.input.key).toLowerCase()}`);
      await download(job.input, inputFile, ACCEPTED_UPLOADS[kind].maxBytes, INPUT_DOWNLOAD_MS);
    }
    const { x, y } = previewSize(job.resolutionX, job.resolutionY);
    const started = Date.now();
    const render = await servers.scene(scene.id).render(
      {
        sceneId: scene.id,
        customText: job.customText,
        options: job.options,
        alignment: job.alignment,
        inputFile,
        mode: 'still',
        resolutionX: x,
        resolutionY: y,
        isTest: true,
        samples: LIVE_PREVIEW.samples,
        denoise: LIVE_PREVIEW.denoise,
        cornerMark: true,
        maxAudioSeconds: PREVIEW_AUDIO_SECONDS,
      },
      LIVE_PREVIEW.deadlineMs,
      { previewWidth: LIVE_PREVIEW.maxSide },
      servers.bands,
    );
    try {
      const jpeg = await readOutput(path.join(render.folder, framePreviewFile(1)), MAX_PREVIEW_BYTES);
      return { image: jpeg.toString('base64'), renderMs: Date.now() - started };
    } finally {
      await render.done();
    }
  } catch (error) {
    // The customer's file cannot be rendered, or their scene took longer than a preview may: theirs to change.
    if (error instanceof RenderError && (error.kind === 'invalid-input' || error.kind === 'timed-out')) return { userError: error.userMessage };
    throw error;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A warm-up: the scene's server is started (a customise page that opens asks for it). */
export async function warmPreview(sceneId: number, servers: WarmScenes): Promise<void> {
  await servers.scene(sceneId).warm();
}

const warmUpJob = z.strictObject({ step: z.literal('warm'), sceneId: z.number().int() });

/** One invocation of the preview function: a preview, or a warm-up ({ step: 'warm', sceneId }). */
export async function previewInvocation(event: unknown, servers: WarmScenes, download: UploadDownload): Promise<PreviewResult | { warm: true }> {
  const warm = warmUpJob.safeParse(event);
  if (warm.success) {
    await warmPreview(warm.data.sceneId, servers);
    return { warm: true };
  }
  return renderPreview(previewJob.parse(event), servers, download);
}

/**
 * The local stack's warm scene servers: a request's bands use the machine's cores, up to 4. The denoiser their
 * pictures go through is loaded now, as the preview function's Init loads it, not on the first customer's change.
 */
export function localWarmScenes(): WarmScenes {
  sharedDenoiser('fast').catch((error: unknown) => log.warn('The denoiser did not load: it is loaded on first use', { error }));
  return new WarmScenes({ bands: Math.min(4, availableParallelism()) });
}

/** The local stack's previewer: warm scene servers in its own process (the port's shape, core/ports.ts's Previewer). */
export function localPreviewer(download: UploadDownload, servers = localWarmScenes()) {
  return {
    render: (preview: Omit<PreviewJob, 'step'>) => renderPreview(previewJob.parse({ step: 'preview', ...preview }), servers, download),
    warm: (sceneId: number) => warmPreview(sceneId, servers),
    stop: () => servers.stop(),
  };
}
