/**
 * A chunk rendered by a warm scene's forked children (render/warm-scene.ts) instead of a fresh Blender: the worker that
 * claimed the chunk hands over its scene's arguments and gets the outputs back in its own output folder, then stores
 * and delivers them as it would a fresh render's.
 * - A still (a free test still, a paid still, or a region of a split still) is rendered in bands side by side, stitched
 *   and denoised once here, then saved by one more child (a region's bands share its rows and margins, and the child
 *   saves its own rows, final, for the finishing step to join).
 * - An animation's frames are rendered in parts side by side, a child each for the chunk's cores: a forked child renders
 *   on one core. Each frame is denoised here as a fresh Blender's is, and handed to the worker as it is written. Frames
 *   that do not fill every core's last round (one frame per chunk on a machine of several cores) start a fresh Blender.
 *
 * Where the servers live: on the render function, in the runtime loop's process, kept between invocations, which its
 * invocations' processes ask over their IPC channel (`warmOverIpc`, frames included); on the local
 * stack, in the stack's process, which the pool's workers ask over their IPC channel (`warmOverIpc`) for stills: the
 * live previews' servers for a test still, servers of their own for a paid one, so a paid chunk never holds a preview and
 * two workers never wait for one server. An animation's frames on the local pool start the worker's own Blender: the
 * stack's process, which serves everything else too, would denoise and copy each frame (localWarmRenders).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { framePreviewFile, REGION_FILE, STILL_FILE } from '#shared/render-contract';
import { outputFile, RenderError, type RenderErrorKind, type SceneArgs } from './blender';
import { readOutput, WarmScenes } from './warm-scene';

/** A still or a frame is far smaller than this (a 4096-px 16-bit RGBA PNG, uncompressed): a bound on what a child may hand back. */
const MAX_FRAME_BYTES = 256 * 1024 * 1024;
const MAX_PREVIEW_BYTES = 1024 * 1024;

export interface WarmRequest {
  /** The scene's arguments as a fresh render gets them; outputDir is where the outputs go. An animation's gives its frames. */
  args: SceneArgs;
  deadlineMs: number;
  /** Children side by side (an animation's parts; a still's bands, at least the servers' own): the cores the chunk may use. */
  children?: number;
  /** A server not running yet is started for the requests that follow (its start takes cores from the fresh Blender rendering this one). */
  warmUp?: boolean;
}

/**
 * The answer, as JSON (it crosses a process boundary locally): the children's INFO lines, or their error; cold when
 * the scene's server is not running yet (started now if the request says so, for the next one: a fresh Blender is
 * quicker than its start) or cannot denoise, and a fresh Blender renders it.
 */
export type WarmAnswer = { log: string[] } | { error: { kind: RenderErrorKind; userMessage: string; logTail?: string[] } } | { cold: true };

export interface WarmHooks {
  /** An animation's frame, once it is in the request's outputDir (with its preview, when the scene makes one). */
  onFrame?: (frame: number) => void;
  signal?: AbortSignal;
}

/** Renders the request by the scene's warm server, its outputs copied into args.outputDir as a fresh Blender writes them. */
export async function renderWarm(servers: WarmScenes, request: WarmRequest, hooks: WarmHooks = {}): Promise<WarmAnswer> {
  const { outputDir, ...args } = request.args;
  try {
    const server = servers.scene(args.sceneId);
    if (!server.readyPid) {
      if (request.warmUp) server.warm().catch(() => {});
      return { cold: true };
    }
    // A Blender whose children cannot write the passes to denoise: a fresh one renders it.
    if ((args.denoise ?? true) && !server.writesPasses) return { cold: true };
    // A child's outputs are its user's: read without following a link, and only what a frame can weigh.
    const copy = async (from: string, to: string, limit: number) => {
      await mkdir(path.dirname(to), { recursive: true });
      await writeFile(to, await readOutput(from, limit));
    };
    if (args.mode === 'still') {
      // A still is small and soon done: as many bands as the servers allow, however many cores the pool gave this chunk.
      const render = await server.render(args, request.deadlineMs, {}, Math.max(request.children ?? 1, servers.bands));
      try {
        // A region of a split still: its final rows, which the finishing step joins (no preview of its own).
        if (args.region) {
          await copy(path.join(render.folder, REGION_FILE), path.join(outputDir, REGION_FILE), MAX_FRAME_BYTES);
          return { log: render.log };
        }
        await copy(path.join(render.folder, STILL_FILE), path.join(outputDir, STILL_FILE), MAX_FRAME_BYTES);
        await copy(path.join(render.folder, framePreviewFile(1)), path.join(outputDir, framePreviewFile(1)), MAX_PREVIEW_BYTES).catch(() => {});
        return { log: render.log };
      } finally {
        await render.done();
      }
    }
    const frames = args.frames ?? [];
    const count = Math.max(1, request.children ?? servers.bands);
    // A child renders on one core: frames that would leave a core idle (fewer frames than cores, or a last round
    // part-filled) cost a frame's time on one core, more than a fresh Blender's start saves.
    if (frames.length === 0 || frames.length % count !== 0) return { cold: true };
    // Interleaved, so the frames come in about their order, as the worker stores them.
    const parts = Array.from({ length: count }, (_unused, part) => frames.filter((_frame, index) => index % count === part));
    let copies = Promise.resolve();
    const render = await server.renderFrames(
      args,
      {
        parts,
        signal: hooks.signal,
        onProgress: ({ frame, file }) => {
          copies = copies.then(async () => {
            await copy(file, outputFile(outputDir, 'animation', frame), MAX_FRAME_BYTES);
            await copy(path.join(path.dirname(path.dirname(file)), framePreviewFile(frame)), path.join(outputDir, framePreviewFile(frame)), MAX_PREVIEW_BYTES).catch(() => {});
            hooks.onFrame?.(frame);
          });
        },
      },
      request.deadlineMs,
    );
    try {
      await copies;
      return { log: render.log };
    } finally {
      await render.done();
    }
  } catch (error) {
    if (error instanceof RenderError) return { error: { kind: error.kind, userMessage: error.userMessage, logTail: error.details.logTail } };
    throw error;
  }
}

/** The chunk runner's side: the children's INFO lines once the outputs are in place, undefined when the server is cold; a RenderError as a fresh render's. */
export type WarmRenderer = (request: WarmRequest, hooks?: WarmHooks) => Promise<string[] | undefined>;

export function warmRenderer(render: (request: WarmRequest, hooks: WarmHooks) => Promise<WarmAnswer>): WarmRenderer {
  return async (request, hooks = {}) => {
    const answer = await render(request, hooks);
    if ('error' in answer) throw new RenderError(answer.error.kind, answer.error.userMessage, { logTail: answer.error.logTail });
    return 'log' in answer ? answer.log : undefined;
  };
}

/**
 * A pool worker's renderer (adapters/local-render-pool.ts), or a render function invocation's (its runtime loop keeps
 * the servers: answerWarmRequests): the request ({ id, request }) goes to the process holding the servers on the IPC
 * channel, a stop ({ id, abort }) the same way; an animation's frames ({ id, frame }) and the answer ({ id, answer } or
 * { id, failed }) come back there. Undefined when there is no such channel (no servers there).
 */
export function warmOverIpc(): WarmRenderer | undefined {
  if (!process.send || process.env.WARM_RENDERS !== '1') return undefined;
  let next = 0;
  return warmRenderer(
    (request, hooks) =>
      new Promise((resolve, reject) => {
        const id = ++next;
        const abort = () => process.send!({ id, abort: true }, () => {});
        const end = () => {
          process.off('message', heard);
          process.off('disconnect', lost);
          hooks.signal?.removeEventListener('abort', abort);
        };
        const heard = (message: Partial<{ id: number; frame: number; answer: WarmAnswer; failed: string }>) => {
          if (message?.id !== id) return;
          // An animation's frame in place (the render function's loop sends them; the local stack, only when a benchmark asks).
          if (typeof message.frame === 'number') return hooks.onFrame?.(message.frame);
          end();
          if (message.answer) resolve(message.answer);
          else reject(new Error(message.failed ?? 'no answer'));
        };
        const lost = () => {
          end();
          reject(new Error('the stack closed the channel'));
        };
        process.on('message', heard);
        process.once('disconnect', lost);
        hooks.signal?.addEventListener('abort', abort, { once: true });
        process.send!({ id, request });
      }),
  );
}

/**
 * The other side of warmOverIpc, in the process holding the servers: the render function's runtime loop answers its
 * invocation's process, the local stack its pool's workers. A process gone stops what it asked for.
 */
export function answerWarmRequests(child: ChildProcess, render: (request: WarmRequest, hooks: WarmHooks) => Promise<WarmAnswer>): void {
  const stops = new Map<unknown, AbortController>();
  child.on('message', (message: { id?: unknown; request?: WarmRequest; abort?: unknown }) => {
    if (message?.abort) return stops.get(message.id)?.abort();
    if (message?.request === undefined) return;
    const reply = (answer: object) => child.connected && child.send({ id: message.id, ...answer }, () => {});
    const stop = new AbortController();
    stops.set(message.id, stop);
    render(message.request, { signal: stop.signal, onFrame: (frame) => reply({ frame }) })
      .then(
        (answer) => reply({ answer }),
        (error: unknown) => reply({ failed: String((error as Error)?.message ?? error) }),
      )
      .finally(() => stops.delete(message.id));
  });
  child.once('exit', () => stops.forEach((stop) => stop.abort()));
}

/**
 * The local stack's warm renders, in its own process: stills only (a still is denoised once, whatever its bands). A free
 * test still by the live previews' servers (a small picture, soon done), a paid one by a set of servers of its own
 * ("lanes"), kept while they serve. A server renders one request at a time, so requests at once take a lane each:
 * the first lane whose server for the scene is free, running ones first. A lane's servers have tool users of their own (WarmScenes' lane: 1 + its index).
 */
export function localWarmRenders(previews: WarmScenes, lanes: WarmScenes[] = []) {
  const busy = new Set<string>();
  // A free test animation's frames by the live previews' servers (the strip's path) instead: off, but a benchmark compares both.
  let testAnimations = false;
  const take = (sceneId: number) => {
    const free = lanes.map((servers, index) => ({ servers, key: `${index}:${sceneId}` })).filter(({ key }) => !busy.has(key));
    if (free.length === 0) {
      lanes.push(new WarmScenes({ lane: 1 + lanes.length }));
      return take(sceneId);
    }
    const chosen = free.find(({ servers }) => servers.scene(sceneId).readyPid !== undefined) ?? free[0];
    busy.add(chosen.key);
    return chosen;
  };
  return {
    render: async (request: WarmRequest, hooks: WarmHooks): Promise<WarmAnswer> => {
      // An animation's frames would each be denoised and copied in this process, which serves the whole stack, and a test
      // animation would hold its scene's live-preview server (one request at a time) for the whole of it, past every
      // customer's preview wait: the worker's own Blender renders them. The strip's path measured little faster for a
      // 90-frame test animation (bench:live-preview --animation-tests 3: p50 48.8 s against 51.9 s; an earlier version
      // of it slower, 94-106 s against 69-78 s).
      if (request.args.isTest && (request.args.mode === 'still' || testAnimations)) return renderWarm(previews, request, hooks);
      if (request.args.mode !== 'still') return { cold: true };
      const { servers, key } = take(request.args.sceneId);
      try {
        return await renderWarm(servers, request, hooks);
      } finally {
        busy.delete(key);
      }
    },
    stop: () => Promise.all(lanes.map((servers) => servers.stop())),
    /** Whether a free test animation's frames go to the live previews' servers (bench:live-preview measures both paths). */
    warmTestAnimations: (on: boolean) => {
      testAnimations = on;
    },
  };
}
