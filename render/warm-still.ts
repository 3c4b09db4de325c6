/**
 * A free test render's still, made by a warm scene's forked children (render/warm-scene.ts)
 * instead of a fresh Blender: the worker that claimed the chunk hands over its scene's
 * arguments and gets the still and its preview back in its own output folder, then stores
 * and delivers them as it would a fresh render's.
 *
 * Where the servers live: on the render function, in the worker's own process, kept between
 * invocations; on the local stack, in the stack's process (the servers the live previews use),
 * which the pool's worker asks over its IPC channel (`warmStillOverIpc`). A paid render and a
 * test animation still start a fresh Blender: a forked child renders on one core, so only a
 * small still is faster as bands side by side than a fresh Blender on every thread.
 */
import { writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { framePreviewFile, STILL_FILE } from '#shared/render-contract';
import { RenderError, type RenderErrorKind, type SceneArgs } from './blender';
import { readOutput, type WarmScenes } from './warm-scene';

/** A test still is 480 px at most: its PNG is far smaller than this. */
const MAX_STILL_BYTES = 16 * 1024 * 1024;
const MAX_PREVIEW_BYTES = 1024 * 1024;

export interface WarmStillRequest {
  /** The scene's arguments as a fresh render gets them; outputDir is where the still and its preview go. */
  args: SceneArgs;
  deadlineMs: number;
}

/**
 * The answer, as JSON (it crosses a process boundary locally): the children's INFO lines, or their error; cold when
 * the scene's server is not running yet (it starts now, for the next request; a fresh Blender is quicker than its start)
 * or cannot denoise, and a fresh Blender renders it.
 */
export type WarmStillAnswer = { log: string[] } | { error: { kind: RenderErrorKind; userMessage: string; logTail?: string[] } } | { cold: true };

/** Renders the request by the scene's warm server, its bands side by side, and copies the still and its preview into args.outputDir. */
export async function renderWarmStill(servers: WarmScenes, request: WarmStillRequest): Promise<WarmStillAnswer> {
  const { outputDir, ...args } = request.args;
  try {
    const server = servers.scene(args.sceneId);
    if (!server.readyPid) {
      server.warm().catch(() => {});
      return { cold: true };
    }
    // A Blender whose children cannot write the passes to denoise: a fresh one renders it.
    if ((args.denoise ?? true) && !server.writesPasses) return { cold: true };
    const render = await server.render({ ...args, mode: 'still' }, request.deadlineMs, {}, servers.bands);
    try {
      // The children's folder is their user's: read without following a link, and only what a still can weigh.
      const still = await readOutput(path.join(render.folder, STILL_FILE), MAX_STILL_BYTES);
      const preview = await readOutput(path.join(render.folder, framePreviewFile(1)), MAX_PREVIEW_BYTES).catch(() => undefined);
      await writeFile(path.join(outputDir, STILL_FILE), still);
      if (preview) {
        await mkdir(path.dirname(path.join(outputDir, framePreviewFile(1))), { recursive: true });
        await writeFile(path.join(outputDir, framePreviewFile(1)), preview);
      }
      return { log: render.log };
    } finally {
      await render.done();
    }
  } catch (error) {
    if (error instanceof RenderError) return { error: { kind: error.kind, userMessage: error.userMessage, logTail: error.details.logTail } };
    throw error;
  }
}

/** The chunk runner's side: the children's INFO lines once the still is rendered, undefined when the server is cold; a RenderError as a fresh render's. */
export type WarmStillRenderer = (args: SceneArgs, deadlineMs: number) => Promise<string[] | undefined>;

export function warmStillRenderer(render: (request: WarmStillRequest) => Promise<WarmStillAnswer>): WarmStillRenderer {
  return async (args, deadlineMs) => {
    const answer = await render({ args, deadlineMs });
    if ('error' in answer) throw new RenderError(answer.error.kind, answer.error.userMessage, { logTail: answer.error.logTail });
    return 'log' in answer ? answer.log : undefined;
  };
}

/**
 * A pool worker's renderer (adapters/local-render-pool.ts): the request goes to the stack's process on the IPC
 * channel the pool opened, and the answer comes back there. Undefined when the pool opened none (no servers there).
 */
export function warmStillOverIpc(): WarmStillRenderer | undefined {
  if (!process.send || process.env.WARM_STILLS !== '1') return undefined;
  let next = 0;
  return warmStillRenderer(
    (request) =>
      new Promise((resolve, reject) => {
        const id = ++next;
        const answered = (message: { id?: number; answer?: WarmStillAnswer; failed?: string }) => {
          if (message?.id !== id) return;
          process.off('message', answered);
          process.off('disconnect', lost);
          if (message.answer) resolve(message.answer);
          else reject(new Error(message.failed ?? 'no answer'));
        };
        const lost = () => {
          process.off('message', answered);
          reject(new Error('the stack closed the channel'));
        };
        process.on('message', answered);
        process.once('disconnect', lost);
        process.send!({ id, request });
      }),
  );
}
