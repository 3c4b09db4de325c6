/**
 * Warm scene servers (render/warm-scene.ts, render/scenes/warm.py) with real Blender: a parent
 * forks a child per request; the parent stays as it was (its memory, its pid) over hundreds of
 * forks; a child past its deadline is killed and the next request is served; what one
 * customer's child did (their model, a process it started, a look at the parent) reaches
 * neither the parent nor the next customer's picture.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, copyFileSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { getScene } from '#shared/catalogue';
import { scenePolicy } from '#shared/render-manifest';
import { frameFile, framePreviewFile, STILL_FILE } from '#shared/render-contract';
import { RenderError, runScene, sceneScriptPath } from '#render/blender';
import { readOutput, WarmScene, WarmScenes, sceneToolIdentity } from '#render/warm-scene';
import { createFixtures, type Fixtures } from './fixtures';
import { psnr, readRgb } from '#render/image-quality';

let fixtures: Fixtures;
beforeAll(async () => {
  fixtures = await createFixtures();
});
afterAll(() => fixtures?.remove());

const TINY_PREVIEW = { mode: 'still', resolutionX: 64, resolutionY: 36, isTest: true, samples: 1, denoise: false, cornerMark: true } as const;
/** A process that runs (a zombie or a pid gone from /proc does not). */
const alive = (pid: number) => {
  try {
    return !/^State:\s+[ZX]/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
};
const childrenOf = (pid: number) =>
  readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return new RegExp(`^PPid:\\s+${pid}$`, 'm').test(readFileSync(`/proc/${name}/status`, 'utf8'));
      } catch {
        return false;
      }
    })
    .map(Number);
/** Whether a process's writable memory (heap, stacks, anonymous and data mappings) holds text: read through /proc, as root. */
function memoryHolds(pid: number, text: string): boolean {
  const needle = Buffer.from(text, 'utf8');
  const memory = openSync(`/proc/${pid}/mem`, 'r');
  const chunk = Buffer.alloc(16 * 1024 * 1024);
  try {
    for (const line of readFileSync(`/proc/${pid}/maps`, 'utf8').split('\n')) {
      const [range, permissions] = line.split(/\s+/);
      if (!range || !permissions.startsWith('rw')) continue;
      const [start, end] = range.split('-').map((hex) => parseInt(hex, 16));
      // Chunks overlap by the needle's length, so a text across two chunks is found too.
      for (let at = start; at < end; at += chunk.length - needle.length) {
        let read = 0;
        try {
          read = readSync(memory, chunk, 0, Math.min(chunk.length, end - at), at);
        } catch {
          break;
        }
        if (chunk.subarray(0, read).includes(needle)) return true;
        if (at + read >= end) break;
      }
    }
    return false;
  } finally {
    closeSync(memory);
  }
}
const rssKb = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);

async function picture(server: WarmScene, args: Parameters<WarmScene['render']>[0], deadlineMs = 30_000, bands = 1): Promise<Buffer> {
  const result = await server.render(args, deadlineMs, { previewWidth: 320 }, bands);
  try {
    return await readOutput(path.join(result.folder, framePreviewFile(1)), 1024 * 1024);
  } finally {
    await result.done();
  }
}

describe('a warm scene server', () => {
  test('when it serves 200 requests in a row, every child renders, the parent is the same process and its memory stays flat', async () => {
    const server = new WarmScene({ scene: getScene(1)!, identity: sceneToolIdentity(1), maxForks: 1000 });
    try {
      await server.warm();
      const pid = (await server.parentPid())!;
      const times: number[] = [];
      let before = 0;
      for (let i = 0; i < 200; i += 1) {
        const started = performance.now();
        const jpeg = await picture(server, { sceneId: 1, customText: `Fork ${i}`, options: { textColor: i % 2 ? '#ff3300' : '#33aaff' }, ...TINY_PREVIEW });
        times.push(performance.now() - started);
        expect(jpeg.subarray(0, 2).toString('hex'), `request ${i}`).toBe('ffd8');
        // Measured after the first requests, once the allocator has settled.
        if (i === 9) before = rssKb(pid);
      }
      expect(await server.parentPid()).toBe(pid);
      expect(server.starts).toBe(1);
      const growthKb = rssKb(pid) - before;
      // The parent renders nothing after its warm-up: its memory may move by the allocator's noise only.
      expect(growthKb, `parent grew ${growthKb} kB over 190 forks`).toBeLessThan(8 * 1024);
      console.log(`200 forks: median ${times.sort((a, b) => a - b)[100].toFixed(0)} ms, max ${times[199].toFixed(0)} ms, parent memory ${growthKb} kB over 190 forks`);
    } finally {
      await server.stop();
    }
  });

  test('when a preview is rendered in two bands side by side and joined, it is the picture one child makes', async () => {
    const server = new WarmScene({ scene: getScene(1)!, identity: sceneToolIdentity(1) });
    try {
      const args = { sceneId: 1, customText: 'Bands', ...TINY_PREVIEW, resolutionX: 160, resolutionY: 90, samples: 4 } as const;
      const file = (name: string, jpeg: Buffer) => {
        const target = path.join(fixtures.dir, `${name}.jpg`);
        writeFileSync(target, jpeg);
        return readRgb(target);
      };
      const whole = await file('whole', await picture(server, args));
      const joined = await file('joined', await picture(server, args, 30_000, 2));
      expect([joined.width, joined.height]).toEqual([160, 90]);
      // The same pixels sampled the same way: only the JPEG's blocks along the seam may differ.
      expect(psnr(joined, whole)).toBeGreaterThan(30);
    } finally {
      await server.stop();
    }
  });

  test('when a test still is denoised, its bands are stitched and denoised once: the picture a fresh Blender makes, its PREVIEW mark kept', async () => {
    const server = new WarmScene({ scene: getScene(1)!, identity: sceneToolIdentity(1) });
    // A test render's own sampling, for the marked and the unmarked still alike.
    const still = { sceneId: 1, customText: 'Clean', options: { backgroundStyle: 'hot' }, mode: 'still', resolutionX: 240, resolutionY: 136, samples: scenePolicy(1).test.samples } as const;
    const fresh = async (name: string, args: Omit<Parameters<typeof runScene>[0], 'outputDir'>) => {
      const outputDir = path.join(fixtures.dir, name);
      await runScene({ ...args, outputDir });
      return readRgb(path.join(outputDir, STILL_FILE));
    };
    try {
      const render = await server.render({ ...still, isTest: true }, 30_000, {}, 2);
      let warm;
      try {
        writeFileSync(path.join(fixtures.dir, 'warm-still.png'), await readOutput(path.join(render.folder, STILL_FILE), 16 * 1024 * 1024));
        warm = await readRgb(path.join(fixtures.dir, 'warm-still.png'));
      } finally {
        await render.done();
      }
      const marked = await fresh('fresh-marked', { ...still, isTest: true });
      const unmarked = await fresh('fresh-unmarked', { ...still, isTest: false });
      expect([warm.width, warm.height]).toEqual([240, 136]);
      // The same samples, stitched before the one denoise: the seam between the bands cannot show.
      const same = psnr(warm, marked);
      // The mark: the bottom-right corner, where it sits (the middle is the customer's), against the same still without it.
      let difference = 0;
      let values = 0;
      for (let y = Math.floor(0.8 * warm.height); y < Math.ceil(0.97 * warm.height); y += 1) {
        for (let x = Math.floor(0.7 * warm.width); x < Math.ceil(0.98 * warm.width); x += 1) {
          for (let c = 0; c < 3; c += 1) difference += Math.abs(marked.rgb[(y * warm.width + x) * 3 + c] - unmarked.rgb[(y * warm.width + x) * 3 + c]);
          values += 3;
        }
      }
      const mark = difference / values;
      console.log(`warm denoised still against a fresh Blender's: ${same.toFixed(1)} dB; the PREVIEW mark moves the bottom-right corner by ${mark.toFixed(1)} of 255 on average`);
      expect(same).toBeGreaterThan(35);
      // A mark smoothed away by the denoiser would move the corner by about nothing.
      expect(mark).toBeGreaterThan(4);
    } finally {
      await server.stop();
    }
  });

  test("when a paid animation's frames are rendered in two parts side by side, each frame is denoised and is the frame a fresh Blender makes", async () => {
    const server = new WarmScene({ scene: getScene(1)!, identity: sceneToolIdentity(1) });
    const frames = { sceneId: 1, customText: 'Parts', mode: 'animation', resolutionX: 192, resolutionY: 108, samples: 2, frameStart: 1, frameEnd: 120 } as const;
    const reported: number[] = [];
    try {
      const render = await server.renderFrames(frames, { parts: [[10, 30], [20, 40]], onProgress: ({ frame }) => reported.push(frame) }, 60_000);
      const warm = [];
      try {
        for (const frame of [10, 20, 30, 40]) {
          const copy = path.join(fixtures.dir, `warm-frame-${frame}.png`);
          writeFileSync(copy, await readOutput(path.join(render.folder, frameFile(frame)), 16 * 1024 * 1024));
          warm.push(await readRgb(copy));
        }
      } finally {
        await render.done();
      }
      expect(reported.sort((a, b) => a - b)).toEqual([10, 20, 30, 40]);
      const outputDir = path.join(fixtures.dir, 'fresh-frames');
      await runScene({ ...frames, frames: [10, 20, 30, 40], outputDir });
      for (const [i, frame] of [10, 20, 30, 40].entries()) {
        const fresh = await readRgb(path.join(outputDir, frameFile(frame)));
        // The same samples and the same denoiser: a forked child on one core renders what a fresh Blender on every core does.
        expect(psnr(warm[i], fresh), `frame ${frame}`).toBeGreaterThan(40);
      }
    } finally {
      await server.stop();
    }
  });

  test('when a render in parts is stopped, its children end at their next frame, the render is cancelled and the same parent serves the next request', async () => {
    const server = new WarmScene({ scene: getScene(1)!, identity: sceneToolIdentity(1) });
    const frames = { sceneId: 1, customText: 'Stop', mode: 'animation', resolutionX: 64, resolutionY: 36, samples: 1, denoise: false, frameStart: 1, frameEnd: 120 } as const;
    try {
      await server.warm();
      const pid = await server.parentPid();
      const stop = new AbortController();
      const reported: number[] = [];
      const started = performance.now();
      const error = await server
        .renderFrames(frames, { parts: [Array.from({ length: 60 }, (_, i) => 2 * i + 1), Array.from({ length: 60 }, (_, i) => 2 * i + 2)], signal: stop.signal, onProgress: ({ frame }) => reported.push(frame) === 2 && stop.abort() }, 120_000)
        .then(() => undefined, (thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(RenderError);
      expect((error as RenderError).kind).toBe('aborted');
      // Two frames reported, then at most a frame more in each child before its next control line fails.
      expect(reported.length).toBeLessThan(10);
      console.log(`a render in parts stopped after ${reported.length} frames in ${(performance.now() - started).toFixed(0)} ms`);
      const render = await server.renderFrames(frames, { parts: [[1], [2]], onProgress: () => {} }, 30_000);
      await render.done();
      expect(await server.parentPid()).toBe(pid);
    } finally {
      await server.stop();
    }
  });

  test('when a parent has served its bound of requests, a denoised still (two steps) counts once and the next request gets a new parent', async () => {
    const server = new WarmScene({ scene: getScene(1)!, identity: sceneToolIdentity(1), maxForks: 2 });
    const denoised = { sceneId: 1, customText: 'Bound', ...TINY_PREVIEW, denoise: true } as const;
    try {
      await server.warm();
      const first = await server.parentPid();
      for (let i = 0; i < 2; i += 1) expect((await picture(server, denoised)).subarray(0, 2).toString('hex'), `request ${i}`).toBe('ffd8');
      expect((await picture(server, denoised)).subarray(0, 2).toString('hex')).toBe('ffd8');
      expect(server.starts).toBe(2);
      expect(await server.parentPid()).not.toBe(first);
    } finally {
      await server.stop();
    }
  });

  test('when a child runs past its deadline, it is killed, the customer is told, and the same parent serves the next request', async () => {
    const server = new WarmScene({ scene: getScene(1)!, identity: sceneToolIdentity(1) });
    try {
      await server.warm();
      const pid = await server.parentPid();
      const late = server.render({ sceneId: 1, customText: 'Too slow', ...TINY_PREVIEW, resolutionX: 480, resolutionY: 270, samples: 4096 }, 300);
      await expect(late).rejects.toMatchObject({ kind: 'timed-out' });
      await expect(late).rejects.toBeInstanceOf(RenderError);
      const jpeg = await picture(server, { sceneId: 1, customText: 'Next', ...TINY_PREVIEW });
      expect(jpeg.subarray(0, 2).toString('hex')).toBe('ffd8');
      expect(await server.parentPid()).toBe(pid);
    } finally {
      await server.stop();
    }
  });

  test('when the parent is stopped while its child renders, the request answers with our error, the child is gone and the next request gets a new parent', async () => {
    const server = new WarmScene({ scene: getScene(1)!, identity: sceneToolIdentity(1) });
    let pid = 0;
    try {
      await server.warm();
      pid = (await server.parentPid())!;
      // A render far longer than its 2 s deadline, which only the parent would stop.
      const held = server.render({ sceneId: 1, customText: 'Held', ...TINY_PREVIEW, resolutionX: 480, resolutionY: 270, samples: 4096 }, 2_000).then(
        () => 'rendered',
        (thrown: unknown) => thrown,
      );
      let children: number[] = [];
      while (children.length === 0) {
        await new Promise((resolve) => setTimeout(resolve, 20));
        children = childrenOf(pid);
      }
      // What a child or an escaped process of the parent's user can do: the parent then neither stops the child nor answers.
      process.kill(pid, 'SIGSTOP');
      // Far past the deadline and its grace: only a server that waits on a held parent for ever misses it.
      const answer = await Promise.race([held, new Promise((resolve) => setTimeout(resolve, 60_000, 'no answer after 60 s'))]);
      expect(answer).toBeInstanceOf(RenderError);
      expect((answer as RenderError).kind).toBe('render-failed');
      expect((answer as RenderError).details.logTail?.join('\n')).toMatch(/did not answer/);
      // Killed with its parent (a process killed takes a moment to go; a child nobody killed renders on for minutes).
      for (let tries = 0; tries < 100 && children.some(alive); tries += 1) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(children.filter(alive)).toEqual([]);
      const jpeg = await picture(server, { sceneId: 1, customText: 'Next', ...TINY_PREVIEW });
      expect(jpeg.subarray(0, 2).toString('hex')).toBe('ffd8');
      expect(await server.parentPid()).not.toBe(pid);
      expect(server.starts).toBe(2);
      // The held parent is gone, not left stopped beside its replacement.
      expect(alive(pid)).toBe(false);
    } finally {
      if (pid && alive(pid)) process.kill(pid, 'SIGCONT');
      await server.stop();
    }
  });

  test('when the parent was stopped or traced between requests, the next request is served by a new parent', async () => {
    const server = new WarmScene({ scene: getScene(1)!, identity: sceneToolIdentity(1) });
    const held: number[] = [];
    let tracer: ChildProcess | undefined;
    try {
      await server.warm();
      held.push((await server.parentPid())!);
      process.kill(held[0], 'SIGSTOP');
      // Stopped once the kernel has delivered the signal: then the next request comes.
      for (let tries = 0; tries < 250 && !/^State:\s+T/m.test(readFileSync(`/proc/${held[0]}/status`, 'utf8')); tries += 1) await new Promise((resolve) => setTimeout(resolve, 20));
      expect((await picture(server, { sceneId: 1, customText: 'After stop', ...TINY_PREVIEW })).subarray(0, 2).toString('hex')).toBe('ffd8');
      held.push((await server.parentPid())!);
      expect(held[1]).not.toBe(held[0]);
      expect(alive(held[0])).toBe(false);
      // A tracer may read and write the parent's memory: as root strace may attach to it, not dumpable as it is.
      if (process.getuid?.() === 0) {
        tracer = spawn('strace', ['-p', String(held[1]), '-o', '/dev/null'], { stdio: 'ignore' });
        for (let tries = 0; tries < 250 && /^TracerPid:\s+0$/m.test(readFileSync(`/proc/${held[1]}/status`, 'utf8')); tries += 1) await new Promise((resolve) => setTimeout(resolve, 20));
        expect(readFileSync(`/proc/${held[1]}/status`, 'utf8')).not.toMatch(/^TracerPid:\s+0$/m);
        expect((await picture(server, { sceneId: 1, customText: 'After trace', ...TINY_PREVIEW })).subarray(0, 2).toString('hex')).toBe('ffd8');
        expect(await server.parentPid()).not.toBe(held[1]);
        expect(server.starts).toBe(3);
      }
    } finally {
      tracer?.kill('SIGKILL');
      for (const pid of held) if (alive(pid)) process.kill(pid, 'SIGCONT');
      await server.stop();
    }
  });

  // As root (CI, the render image), this process may read the parent's memory, not dumpable as it is.
  test.skipIf(process.getuid?.() !== 0)("when a request is served, the parent's memory holds none of the customer's settings", async () => {
    const server = new WarmScene({ scene: getScene(1)!, identity: sceneToolIdentity(1) });
    // Distinctive: a text no scene, library or earlier test holds.
    const text = `Qz${randomBytes(6).toString('hex')}`;
    const colour = `#${randomBytes(3).toString('hex')}`;
    try {
      await server.warm();
      const pid = (await server.parentPid())!;
      const render = await server.render({ sceneId: 1, customText: text, options: { textColor: colour }, ...TINY_PREVIEW }, 30_000);
      const folder = render.folder;
      await render.done();
      expect(await server.parentPid()).toBe(pid);
      // The reading itself works: the request's folder, which the parent is told, is found in the same memory.
      const told = path.basename(path.dirname(folder));
      expect(memoryHolds(pid, told), `${told} in the parent's memory`).toBe(true);
      expect(memoryHolds(pid, text), `${text} in the parent's memory`).toBe(false);
      expect(memoryHolds(pid, colour), `${colour} in the parent's memory`).toBe(false);
    } finally {
      await server.stop();
    }
  });

  test("when one customer's model was previewed, the next customer's picture is what a fresh server makes of it", async () => {
    const scene = getScene(4)!;
    const other = path.join(fixtures.dir, 'other.obj');
    writeFileSync(other, 'v -1 0 -1\nv 1 0 -1\nv 0 0 1\nv 0 1.5 0\nf 1 2 3\nf 1 2 4\nf 2 3 4\nf 3 1 4\n');
    const next = { sceneId: 4, inputFile: other, ...TINY_PREVIEW, resolutionX: 160, resolutionY: 90, samples: 8 } as const;
    const fresh = new WarmScene({ scene, identity: sceneToolIdentity(4) });
    const used = new WarmScene({ scene, identity: sceneToolIdentity(4) });
    const saved = (name: string, jpeg: Buffer) => {
      const file = path.join(fixtures.dir, `${name}.jpg`);
      writeFileSync(file, jpeg);
      return readRgb(file);
    };
    try {
      const expected = await saved('expected', await picture(fresh, next));
      const knot = await saved('knot', await picture(used, { ...next, inputFile: fixtures.modelObj }));
      const after = await saved('after', await picture(used, next));
      // The same scene again (Cycles' noise differs a little from one child to the next); the knot is another picture.
      const same = psnr(after, expected);
      const another = psnr(knot, expected);
      console.log(`next customer's picture against a fresh server's: ${same.toFixed(1)} dB; the previous customer's: ${another.toFixed(1)} dB`);
      expect(same).toBeGreaterThan(another + 6);
      expect(used.starts).toBe(1);
    } finally {
      await Promise.all([fresh.stop(), used.stop()]);
    }
  });

  // As root (CI, the render image), a child runs as the scene's own user: every process of that user is killed after it.
  test.skipIf(process.getuid?.() !== 0)('when a child runs code of its own, it can read neither the parent nor the next request, and nothing it started outlives it', async () => {
    // A scene script standing for a customer's file that got code running in Blender.
    const scripts = mkdtempSync(path.join(tmpdir(), 'hostile-scenes-'));
    const real = path.dirname(sceneScriptPath('text-animation'));
    for (const name of readdirSync(real).filter((entry) => entry.endsWith('.py'))) copyFileSync(path.join(real, name), path.join(scripts, name));
    writeFileSync(
      path.join(scripts, 'hostile.py'),
      [
        'import os, subprocess, sys',
        'sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))',
        'import protocol',
        'import building',
        'def build(scene, args):',
        '    scene.camera = building.add_camera((0, -5, 1), (0, 0, 0))',
        '    if not args.custom_text:',
        '        return None',
        '    seen = []',
        '    for name in ("mem", "environ"):',
        '        try:',
        '            open(f"/proc/{os.getppid()}/{name}", "rb").read(16)',
        '            seen.append(name + " read")',
        '        except OSError:',
        '            seen.append(name + " refused")',
        '    def link(n):',
        '        try:',
        '            return os.readlink(f"/proc/self/fd/{n}")',
        '        except OSError:',
        '            return None',
        '    held = [n for n in os.listdir("/proc/self/fd") if link(n) == args.custom_text]',
        '    seen.append("channel held" if held else "channel not held")',
        '    subprocess.Popen(["sleep", "300"], start_new_session=True)',
        '    raise protocol.UserError(", ".join(seen))',
        'protocol.run(build)',
        '',
      ].join('\n'),
    );
    const saved = process.env.RENDER_SCENES_DIR;
    process.env.RENDER_SCENES_DIR = scripts;
    const identity = sceneToolIdentity(1);
    const server = new WarmScene({ scene: { id: 1, slug: 'hostile', optionsConfig: getScene(1)!.optionsConfig }, identity });
    try {
      await server.warm();
      const pid = (await server.parentPid())!;
      // What the parent's channel is (its file descriptor 3): the child looks for it among its own.
      const channel = readlinkSync(`/proc/${pid}/fd/3`);
      expect(channel).toMatch(/^socket:\[\d+\]$/);
      const attempt = server.render({ sceneId: 1, customText: channel, ...TINY_PREVIEW }, 10_000);
      const refused = (await attempt.catch((error: unknown) => error)) as RenderError;
      expect(refused).toBeInstanceOf(RenderError);
      expect(refused.userMessage, JSON.stringify(refused.details)).toBe('mem refused, environ refused, channel not held');
      expect(await server.parentPid()).toBe(pid);
      // The child's user's (a `sleep 300` of another user on the machine is none of its doing).
      const sleepers = execFileSync('ps', ['-eo', 'pid,uid,args'], { encoding: 'utf8' })
        .split('\n')
        .filter((line) => /\bsleep 300\b/.test(line) && line.trim().split(/\s+/)[1] === String(identity!.uid));
      expect(sleepers).toEqual([]);
    } finally {
      await server.stop();
      if (saved === undefined) delete process.env.RENDER_SCENES_DIR;
      else process.env.RENDER_SCENES_DIR = saved;
      rmSync(scripts, { recursive: true, force: true });
    }
  });
});

describe('a warm scene server restored from a snapshot', () => {
  test('when two environments are restored from one snapshot and each parent is given its own seed, their generators differ; given the same seed, they are the same (the seed alone sets them, nothing the snapshot held)', async () => {
    // Two parents of the same scene stand for one parent in two restored environments.
    const [first, second] = [1, 2].map(() => new WarmScene({ scene: getScene(1)!, identity: sceneToolIdentity(1), maxForks: 10 }));
    try {
      await Promise.all([first.warm(), second.warm()]);
      const pids = [first.readyPid, second.readyPid];
      const same = randomBytes(32);
      const [sameFirst, sameSecond] = await Promise.all([first.reseed(same), second.reseed(same)]);
      expect(sameFirst).toMatch(/^[0-9a-f]{32}$/);
      expect(sameSecond).toBe(sameFirst);
      const [ownFirst, ownSecond] = await Promise.all([first.reseed(randomBytes(32)), second.reseed(randomBytes(32))]);
      expect(ownFirst).toMatch(/^[0-9a-f]{32}$/);
      expect(ownSecond).toMatch(/^[0-9a-f]{32}$/);
      expect(ownFirst).not.toBe(ownSecond);
      expect(ownFirst).not.toBe(sameFirst);
      // Reseeded, not replaced: the warm parents serve on.
      expect([first.readyPid, second.readyPid]).toEqual(pids);
      const afterRestore = await first.render({ sceneId: 1, customText: 'After restore', ...TINY_PREVIEW }, 30_000);
      await afterRestore.done();
      expect(first.readyPid).toBe(pids[0]);
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
  }, 120_000);
});

describe("a function's Init (SnapStart)", () => {
  test('when Init warms scenes one at a time, each has a ready parent before any request, and each takes its own seed after a restore', async () => {
    const servers = new WarmScenes({ threads: 1 });
    try {
      await servers.warm([1, 6], 1);
      const ready = [servers.scene(1).readyPid, servers.scene(6).readyPid];
      expect(ready.every((pid) => pid !== undefined && alive(pid))).toBe(true);
      expect(servers.pids().sort()).toEqual([...ready].sort());
      const digests = await servers.reseed(() => randomBytes(32));
      expect(digests).toHaveLength(2);
      expect(digests.every((digest) => /^[0-9a-f]{32}$/.test(digest ?? ''))).toBe(true);
      expect(digests[0]).not.toBe(digests[1]);
    } finally {
      await servers.stop();
    }
  }, 120_000);
});
