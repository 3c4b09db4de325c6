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
import { denoiserLoads, sharedDenoiser } from './denoiser';
import { log } from '#observability/logger';
import { alignment } from '#shared/schemas';
import { livePreviewSize } from '#shared/preview-size';
import { LIVE_STRIP, stripFollowsAudio } from '#shared/live-preview';
import { loudestStripFrames } from './strip-frames';
import { FPS, MAX_MEDIA_DURATION_SECONDS } from '#shared/frames';
import type { WarmScene } from './warm-scene';
import type { SceneArgs } from './blender';

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
  /** The upload as inspected: a presigned GET pinned to its ETag, which the download checks too. */
  input: z.strictObject({ key: z.string().min(1).max(1024), url: z.string().url(), etag: z.string().min(1).max(200) }).optional(),
  /** When the API stops waiting (ms since the epoch): a preview not started by then is not rendered. */
  deadline: z.number().int().positive(),
  /**
   * A strip of the animation instead of the still: these frames (the API chose them) of a clip of clipFrames. An audio
   * scene's strip shows as many frames of its clip, the loudest moments of the customer's audio among them
   * (render/strip-frames.ts), and these when its audio cannot be measured or is flat.
   */
  strip: z
    .strictObject({
      frames: z.array(z.number().int().positive()).min(LIVE_STRIP.minFrames).max(LIVE_STRIP.maxFrames),
      clipFrames: z.number().int().positive().max(MAX_MEDIA_DURATION_SECONDS * FPS),
    })
    .refine((strip) => strip.frames.every((frame) => frame <= strip.clipFrames), 'a strip\'s frames are frames of its clip')
    .optional(),
});
export type PreviewJob = z.infer<typeof previewJob>;

/**
 * Reads the customer's upload through the presigned GET the API sent into `file`: the content its ETag names and no
 * more than `maxBytes`, within `deadlineMs` (the preview holds no storage rights of its own).
 */
export type UploadDownload = (upload: { key: string; url: string; etag: string }, file: string, maxBytes: number, deadlineMs: number) => Promise<void>;

/** The picture as base64 JPEG, the customer's own error (their file cannot be rendered), or why it was not rendered. */
export type PreviewResult =
  | { image: string; renderMs: number }
  | { strip: { frame: number; image: string }[]; renderMs: number }
  | { userError: string }
  | { notRendered: 'caller-gone' | 'queue-full' };

/**
 * Renders one preview, unless its caller has gone (the API's deadline passed, or `gone` fired): a cold scene's server
 * is started first (it serves the next request whoever asks), and neither the download nor the render begins past the
 * deadline, so a late invocation ends soon after it instead of rendering for nobody.
 */
export async function renderPreview(job: PreviewJob, servers: WarmScenes, download: UploadDownload, gone?: AbortSignal): Promise<PreviewResult> {
  const scene = getScene(job.sceneId);
  if (!scene) throw new Error(`Unknown scene ${job.sceneId}`);
  const kind = requiredUploadKind(scene);
  const left = () => (gone?.aborted ? 0 : job.deadline - Date.now());
  await servers.scene(scene.id).warm();
  if (left() <= 0) return { notRendered: 'caller-gone' };
  const dir = await mkdtemp(path.join(tmpdir(), 'preview-input-'));
  try {
    let inputFile: string | undefined;
    if (job.input && kind) {
      inputFile = path.join(dir, `input${path.extname(job.input.key).toLowerCase()}`);
      await download(job.input, inputFile, ACCEPTED_UPLOADS[kind].maxBytes, Math.min(INPUT_DOWNLOAD_MS, left()));
      if (left() <= 0) return { notRendered: 'caller-gone' };
    }
    const { x, y } = livePreviewSize(job.resolutionX, job.resolutionY);
    const started = Date.now();
    const settings = {
      sceneId: scene.id,
      customText: job.customText,
      options: job.options,
      alignment: job.alignment,
      inputFile,
      resolutionX: x,
      resolutionY: y,
      isTest: true,
      samples: LIVE_PREVIEW.samples,
      denoise: LIVE_PREVIEW.denoise,
      cornerMark: true,
    };
    if (job.strip) return await renderStrip(servers.scene(scene.id), settings, job.strip, stripFollowsAudio(scene), servers.bands, left(), gone);
    const render = await servers.scene(scene.id).render(
      { ...settings, mode: 'still', maxAudioSeconds: PREVIEW_AUDIO_SECONDS },
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

/**
 * A strip: the frames rendered by the warm server's children side by side (a child per core, each its share of the
 * frames, interleaved so every child has as many), as an animation's chunk is, at the still preview's size, sampling and
 * mark; each frame's JPEG read back as a preview's is. The clip's length reaches the scene script (its frame range, and
 * the audio an audio scene decodes), so each frame shows that moment of the clip the paid render would make. An audio
 * scene's frames (`byAudio`, with the customer's file) are the loudest moments of its audio: a child of the same request
 * measures it first (WarmFrames.byLoudness), and the answer names the frames rendered.
 */
async function renderStrip(
  server: WarmScene,
  settings: Omit<SceneArgs, 'outputDir' | 'mode' | 'frames'>,
  strip: NonNullable<PreviewJob['strip']>,
  byAudio: boolean,
  cores: number,
  deadlineMs: number,
  gone: AbortSignal | undefined,
): Promise<PreviewResult> {
  const started = Date.now();
  const count = Math.max(1, Math.min(cores, strip.frames.length));
  const partsOf = (frames: number[]) => Array.from({ length: count }, (_unused, part) => frames.filter((_frame, index) => index % count === part));
  const parts = partsOf(strip.frames);
  const byLoudness = byAudio && settings.inputFile ? (loudness: number[] | undefined) => partsOf(loudness ? loudestStripFrames(loudness, strip.clipFrames, strip.frames.length) : strip.frames) : undefined;
  const args = { ...settings, mode: 'animation' as const, frameStart: 1, frameEnd: strip.clipFrames, maxAudioSeconds: Math.ceil(strip.clipFrames / FPS) };
  let render;
  try {
    // Its children have what is left of the caller's wait, not a still's LIVE_PREVIEW.deadlineMs: eight frames on two
    // cores took 2.5-3.3 s on the loaded 2-core machine (bench:live-preview), and some passed 4 s. A strip is not kept,
    // so one finished after its caller stopped waiting would be thrown away: it is stopped then instead.
    render = await server.renderFrames(args, { parts, ...(byLoudness ? { byLoudness } : {}), onProgress: () => {}, signal: gone }, deadlineMs, { previewWidth: LIVE_PREVIEW.maxSide });
  } catch (error) {
    // Stopped because its caller went (the client closed), or at the end of its wait (its deadline is the caller's):
    // nobody is left to answer, and the customer's settings are not the cause (the API answers that it took too long).
    if (error instanceof RenderError && (error.kind === 'aborted' || error.kind === 'timed-out')) return { notRendered: 'caller-gone' };
    throw error;
  }
  try {
    const frames = [];
    for (const frame of render.frames ?? strip.frames) frames.push({ frame, image: (await readOutput(path.join(render.folder, framePreviewFile(frame)), MAX_PREVIEW_BYTES)).toString('base64') });
    return { strip: frames, renderMs: Date.now() - started };
  } finally {
    await render.done();
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
  for (const { oneThread } of denoiserLoads(['fast'])) sharedDenoiser('fast', oneThread).catch((error: unknown) => log.warn('The denoiser did not load: it is loaded on first use', { error }));
  return new WarmScenes({ bands: Math.min(4, availableParallelism()) });
}

/** Previews waiting for one scene's server locally, besides the one rendering: more could not be answered within the API's wait anyway. */
const PREVIEWS_WAITING_PER_SCENE = 4;
/**
 * How long a local preview may go on from its request: the API's wait (a render starts before it ends, or not at all),
 * then a render's own deadline (LIVE_PREVIEW.deadlineMs, twice: the bands, then the denoised picture's save), plus a grace.
 */
const LOCAL_PREVIEW_REACH_MS = 5_000 + 2 * LIVE_PREVIEW.deadlineMs + 2_000;

/**
 * One scene's line of live previews in the local stack. One preview at a time enters the scene's server, whose own
 * line (render/warm-scene.ts) the free test stills join too: a test still then waits for one preview at most, and a
 * preview for the test stills already queued (one per pool worker at most), so neither starves the other. A preview
 * waits here holding nothing (its upload is read once its turn has come); one whose caller has gone leaves the line
 * at once; a line already PREVIEWS_WAITING_PER_SCENE long turns the next away (a 503: previews are busy).
 */
class PreviewLine {
  private rendering = false;
  private readonly waiting: { start: () => void; gone: AbortSignal; dropped: () => void }[] = [];

  /** Resolves with the turn's release once it is this request's turn; false when the line is full or the caller went first. */
  async turn(gone: AbortSignal): Promise<(() => void) | false> {
    if (gone.aborted) return false;
    if (this.rendering) {
      if (this.waiting.length >= PREVIEWS_WAITING_PER_SCENE) return false;
      const entered = await new Promise<boolean>((resolve) => {
        const entry = {
          gone,
          start: () => {
            gone.removeEventListener('abort', entry.dropped);
            resolve(true);
          },
          dropped: () => {
            this.waiting.splice(this.waiting.indexOf(entry), 1);
            resolve(false);
          },
        };
        this.waiting.push(entry);
        gone.addEventListener('abort', entry.dropped, { once: true });
      });
      if (!entered) return false;
    }
    this.rendering = true;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next.start();
      else this.rendering = false;
    };
  }
}

/** The local stack's previewer: warm scene servers in its own process (the port's shape, core/ports.ts's Previewer). */
export function localPreviewer(download: UploadDownload, servers = localWarmScenes()) {
  const lines = new Map<number, PreviewLine>();
  const lineOf = (sceneId: number) => lines.get(sceneId) ?? lines.set(sceneId, new PreviewLine()).get(sceneId)!;
  return {
    render: async (preview: Omit<PreviewJob, 'step'>, gone: AbortSignal): Promise<PreviewResult> => {
      const job = previewJob.parse({ step: 'preview', ...preview });
      const line = lineOf(job.sceneId);
      const waitingBefore = gone.aborted;
      const release = await line.turn(gone);
      if (!release) return { notRendered: waitingBefore || gone.aborted ? 'caller-gone' : 'queue-full' };
      try {
        return await renderPreview(job, servers, download, gone);
      } finally {
        release();
      }
    },
    warm: (sceneId: number) => warmPreview(sceneId, servers),
    reachMs: LOCAL_PREVIEW_REACH_MS,
    stop: () => servers.stop(),
  };
}
