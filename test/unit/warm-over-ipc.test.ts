/**
 * The render function's invocation process renders a chunk by the warm scene servers its runtime loop keeps
 * (render/entries/render-function.ts): the request crosses their IPC channel (warmOverIpc in the invocation's process,
 * answerWarmRequests in the loop's), and an animation's frames must come back one by one before the answer, as the
 * chunk runner stores each frame when it is written. A stop goes the other way. The servers' side here renders
 * nothing: what is under test is the channel, with a real process at each end.
 */
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { answerWarmRequests, type WarmHooks, type WarmRequest } from '#render/warm-render';

/** The invocation's side: one chunk of three frames, then one stopped while it renders; what it saw goes to stdout. */
const INVOCATION = `
import { warmOverIpc } from ${JSON.stringify(fileURLToPath(new URL('../../render/warm-render.ts', import.meta.url)))};

const warm = warmOverIpc();
const seen = [];
const args = (sceneId) => ({ sceneId, mode: 'animation', frames: [1, 2, 3], outputDir: '/nowhere', resolutionX: 64, resolutionY: 64 });
const log = await warm({ args: args(1), deadlineMs: 1000 }, { onFrame: (frame) => seen.push({ frame }) });
seen.push({ log });
const stop = new AbortController();
const stopped = warm({ args: args(2), deadlineMs: 1000 }, { signal: stop.signal, onFrame: (frame) => (seen.push({ frame }), stop.abort()) });
seen.push({ stopped: await stopped.catch((error) => error.message) });
console.log(JSON.stringify(seen));
process.disconnect();
`;

describe('warm renders over the invocation\'s channel', () => {
  it("when the loop's servers render an animation's frames, each frame reaches the invocation before the answer, and the invocation's stop reaches the render", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'warm-over-ipc-'));
    try {
      writeFileSync(join(dir, 'invocation.mts'), INVOCATION);
      const child = fork(join(dir, 'invocation.mts'), [], { execArgv: ['--import', 'tsx'], env: { ...process.env, WARM_RENDERS: '1' }, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
      let output = '';
      child.stdout!.on('data', (data: Buffer) => (output += data.toString()));
      const renders: { sceneId: number; aborted: boolean }[] = [];
      answerWarmRequests(child, async (request: WarmRequest, hooks: WarmHooks) => {
        for (const frame of request.args.frames ?? []) {
          if (hooks.signal?.aborted) break;
          hooks.onFrame?.(frame);
          // The next frame after the invocation had time to say stop.
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        renders.push({ sceneId: request.args.sceneId, aborted: hooks.signal?.aborted ?? false });
        return hooks.signal?.aborted ? { error: { kind: 'aborted', userMessage: 'stopped' } } : { log: [`scene ${request.args.sceneId}: ${request.args.frames?.length} frames`] };
      });
      await new Promise((resolve) => child.once('close', resolve));
      expect(JSON.parse(output)).toEqual([{ frame: 1 }, { frame: 2 }, { frame: 3 }, { log: ['scene 1: 3 frames'] }, { frame: 1 }, { stopped: 'stopped' }]);
      expect(renders).toEqual([
        { sceneId: 1, aborted: false },
        { sceneId: 2, aborted: true },
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
