/**
 * Warm scene servers: per scene, one Blender that has loaded the scene's script and rendered
 * its defaults once (render/scenes/warm.py), forking a child per request. A request then pays
 * neither Blender's start nor its first render's set-up: the child builds the customer's
 * scene and renders it.
 *
 * Containment per request, as a fresh Blender's (docs/security.md):
 * - the parent never opens a customer's file nor reads a customer's settings: it renders the scene's defaults, then
 *   only forks; a request names its folder (and our own choices: steps, bands, frames), where each child reads the
 *   settings (SETTINGS_FILE) once it has left the parent's user, so no customer's text ever lives in the parent;
 * - where this process is root, the parent runs as root in a network namespace of its own and
 *   each child takes the scene's own tool user before it reads anything of the request; the
 *   request's folder is that user's alone, and every process of that user is killed after it;
 * - where there is no second user (a developer's account, a Lambda environment), the parent
 *   is not dumpable, so a child cannot trace it or read its memory; what a child started is
 *   killed with its session (and on Lambda, every other process between invocations);
 * - a child past its deadline is killed, and the server serves the next request;
 * - a parent that has not answered a request by its deadline plus ANSWER_GRACE_MS (stopped, traced, stuck) is
 *   killed with its children and replaced, and the caller gets our error rather than waiting with it;
 * - the parent is replaced after MAX_FORKS requests, on anything unexpected, and when idle.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { chown, copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import type { Duplex } from 'node:stream';
import { getScene, type SceneDefinition } from '#shared/catalogue';
import type { SceneContract } from '#shared/render-contract';
import { findBlender, BLENDER_MISSING_MESSAGE } from './blender-install';
import { copySceneScripts, keepLogTail, LOG_TAIL_LINES, readControl, RenderError, renderTimedOut, sceneScriptPath, scriptArgsOf, type ControlStep, type RenderLogLevel, type RenderProgress, type SceneArgs } from './blender';
import { prepareForTool, serverProcess, workerToolIdentity, MAX_TOOL_SLOTS, type ToolIdentity } from './tool-environment';
import { openToRead } from '#core/storage/no-follow';
import { denoiseOneThread, denoiseQualityOf, sharedDenoiser, type DenoiseQuality } from './denoiser';
import { readExr } from './denoiser/exr';
import { denoiseImage } from './denoiser/frame';
import { stitchRegions } from './region-stitch';
import { renderedRowsOf } from '#shared/render-plan';
import { log } from '#observability/logger';

/** Requests one parent serves before it is replaced: its memory cannot drift for long. */
export const MAX_FORKS = 200;
/** A server with no request for this long is stopped (its memory goes back to the machine). */
export const IDLE_MS = 10 * 60_000;
/**
 * How long a parent may take to seed its generators again after a restore (a few milliseconds: no render runs), well
 * inside the Restore phase's limit: "If an after-restore runtime hook runs for longer than 10 seconds, the Restore phase
 * times out" (Lambda developer guide, "Troubleshooting SnapStart errors for Lambda functions"). The parents are reseeded together.
 */
const RESEED_MS = 5_000;
/** Blender's start and the defaults' first render, at most. */
const START_MS = 60_000;
/**
 * How long past a request's deadline its parent may take to answer: it kills the children at the deadline, then
 * sweeps their user for up to 2 s (render/scenes/warm.py, SWEEP_LIMIT_SECONDS), on a machine that may be busy. A
 * parent still silent then is held (stopped or traced by a process of its user) or broken, and is replaced.
 */
export const ANSWER_GRACE_MS = 5_000;

const RENDER_FAILED_MESSAGE = 'The render failed unexpectedly. Our team has been notified.';

type ScriptScene = Pick<SceneDefinition, 'id' | 'slug' | 'optionsConfig'>;

export interface WarmRender {
  /** The request's folder, the child's own: its outputs, log.txt and control.txt. Removed by `done`. */
  folder: string;
  /** The child's INFO lines. */
  log: string[];
  /** A render of frames (renderFrames): the frames rendered, in order (its parts', which byLoudness may have chosen). */
  frames?: number[];
  done(): Promise<void>;
}

export interface WarmSceneOptions {
  scene: ScriptScene;
  /** Blender's render threads (-t), shared by the children. */
  threads?: number;
  /** Where this process is root: the user the children run as (the scene's own). */
  identity?: ToolIdentity;
  maxForks?: number;
  idleMs?: number;
  /**
   * A preview's bands of rows rendered side by side (a forked child renders on one core: Blender's
   * thread pool stays in the parent), then joined: the cores a preview may use. 1 by default.
   */
  bands?: number;
}

/** A render's frames in parts, a child each side by side (WarmScene.renderFrames). */
export interface WarmFrames {
  /** The frames of each part (each child renders its own in order). */
  parts: number[][];
  /**
   * An audio scene's frames chosen by its audio (a live strip's loudest moments): one child first measures the loudness
   * of the request's audio per video frame (render/scenes/warm.py, the "levels" step; index 0 is frameStart's), and the
   * parts rendered are these of it instead of `parts`. Given undefined when there is no audio to measure or it was not
   * measured (its child failed, or wrote what is not a list of levels): `parts` then, or whatever it answers.
   */
  byLoudness?: (loudness: number[] | undefined) => number[][];
  /** Each frame as its child reports it written, in the request's folder. */
  onProgress: (progress: RenderProgress) => void;
  onLog?: (message: string, level: RenderLogLevel) => void;
  /** Stops the children: each ends at its next control line (its channel is closed). */
  signal?: AbortSignal;
}

/** The request's settings (SceneArgs as a fresh Blender's args.json), in its folder: the children's to read, never the parent's. */
const SETTINGS_FILE = 'request.json';
/** The loudness per frame a "levels" request's child writes in its folder (render/scenes/warm.py, LEVELS_FILE). */
const LEVELS_FILE = 'levels.json';
/** Ten minutes of audio at 30 frames a second, each level rounded to 4 decimals, is about 130 KB. */
const MAX_LEVELS_BYTES = 1024 * 1024;

/**
 * What the parent is told of a request: its folder and our own choices, never a customer's setting (the parent would
 * keep it in its memory for every later child to find). `render` renders the settings (in bands or parts); `save`
 * saves the frame this process denoised (denoisedFile) as the still; `levels` measures the loudness of the request's
 * audio per frame (LEVELS_FILE); `denoise` has a render write its passes.
 */
interface ParentRequest {
  folder: string;
  step: 'render' | 'save' | 'levels';
  denoise: boolean;
  denoisedFile?: string;
}

interface Parent {
  process: ChildProcess;
  pid: number;
  channel: Duplex;
  pending: Map<string, (status: string) => void>;
  forks: number;
  /** A request is out (its children may be running). */
  asking: boolean;
  /** Its children can write a band's passes. */
  passes?: boolean;
  /** Why it is gone, once it is. */
  ended?: string;
}

/**
 * One scene's server. Requests are rendered one at a time, in order (a child uses every
 * thread it is given); the parent is started on first use and again after it was replaced.
 */
export class WarmScene {
  private parent: Promise<Parent> | undefined;
  private line: Promise<unknown> = Promise.resolve();
  private idle: NodeJS.Timeout | undefined;
  /** The sweep of a replaced parent's tool user, which the next parent waits for (its children take that user). */
  private sweeping: Promise<void> = Promise.resolve();
  /** Parents started so far (tests and the bench read it). */
  starts = 0;
  /** The pid of the parent that is ready, if one is. */
  readyPid: number | undefined;
  /** Whether the ready parent's children can write a band's passes, which a denoised still needs (render/scenes/warm.py, serial_exr). */
  writesPasses = false;
  /** The pid of the parent once spawned, ready or still starting, until it ends. */
  spawnedPid: number | undefined;

  constructor(private readonly options: WarmSceneOptions) {}

  /** The running parent's pid, if one runs (tests read its memory). */
  async parentPid(): Promise<number | undefined> {
    const parent = await this.parent?.catch(() => undefined);
    return parent && !parent.ended ? parent.pid : undefined;
  }

  /** Starts the parent now (a page that opens sends a warm-up), without a request. */
  async warm(): Promise<void> {
    await this.running();
  }

  /**
   * Renders one request in a forked child within deadlineMs. The args' outputDir and
   * inputFile are replaced: the child writes into a folder of its own, and reads the input
   * from there (copied in, so it is the child's user's to read).
   */
  render(args: Omit<SceneArgs, 'outputDir'>, deadlineMs: number, contract: Partial<SceneContract> = {}, bands = 1): Promise<WarmRender> {
    const turn = this.line.then(() => this.renderNow(args, deadlineMs, contract, bands));
    this.line = turn.catch(() => {});
    return turn;
  }

  /**
   * Renders frames as a fresh Blender would (denoised through this process, one frame at a time), in parts side by
   * side: a child each, as a forked child renders on one core. Each child's control lines come on a Unix socket this
   * process listens on in the request's folder, read as a fresh Blender's fd 3 (render/blender.ts, readControl): only
   * its own frames count, and only its own frames' files are denoised. The frames stay in the request's folder until done().
   * `contract` overrides the scene's contract as render's does (a live preview's strip: its frames' JPEGs at the preview's size).
   */
  renderFrames(args: Omit<SceneArgs, 'outputDir' | 'frames'>, frames: WarmFrames, deadlineMs: number, contract: Partial<SceneContract> = {}): Promise<WarmRender> {
    const turn = this.line.then(() => this.renderNow(args, deadlineMs, contract, 1, frames));
    this.line = turn.catch(() => {});
    return turn;
  }

  private async renderNow(args: Omit<SceneArgs, 'outputDir'>, deadlineMs: number, contract: Partial<SceneContract>, bands: number, frames?: WarmFrames): Promise<WarmRender> {
    if (frames?.signal?.aborted) throw new RenderError('aborted', 'The render was cancelled.');
    clearTimeout(this.idle);
    let parent = await this.running();
    // A parent something has stopped or traced since its last request would hold this one, or serve it from a memory
    // another process may have changed: this request gets a fresh parent instead.
    const held = heldState(parent.pid);
    if (held) {
      log.error(`The ${this.options.scene.slug} scene server was ${held}: replaced`, { pid: parent.pid });
      this.replace(parent, held);
      this.parent = undefined;
      parent = await this.running();
    }
    const started = Date.now();
    const left = () => Math.max(0, deadlineMs - (Date.now() - started));
    const folder = await mkdtemp(path.join(tmpdir(), 'warm-request-'));
    const done = () => rm(folder, { recursive: true, force: true });
    try {
      const outputDir = path.join(folder, 'out');
      await mkdir(outputDir);
      let inputFile: string | undefined;
      if (args.inputFile) {
        inputFile = path.join(outputDir, `input${path.extname(args.inputFile).toLowerCase()}`);
        await copyFile(args.inputFile, inputFile);
      }
      const made = scriptArgsOf({ ...args, inputFile, outputDir }, this.options.scene);
      // A Blender whose children cannot write passes (render/scenes/warm.py, serial_exr) makes the picture undenoised.
      const raw = { ...made, scene: { ...made.scene, ...contract }, denoise: made.denoise && parent.passes === true };
      // Written before the folder is the tool user's (nothing of theirs can be in it yet): only the children read it.
      await writeFile(path.join(outputDir, SETTINGS_FILE), JSON.stringify(raw));
      await prepareForTool([outputDir], [], this.options.identity);
      if (frames) {
        if (made.denoise && !raw.denoise) throw new RenderError('render-failed', RENDER_FAILED_MESSAGE, { logTail: [`the ${this.options.scene.slug} server's children cannot write the passes to denoise`] });
        // An audio scene's frames chosen by its audio: measured first, in this request's folder, under its deadline.
        let chosen = frames;
        if (frames.byLoudness) {
          const loudness = inputFile ? await this.measureLoudness(parent, outputDir, left(), deadlineMs, Boolean(args.cornerMark)) : undefined;
          if (frames.signal?.aborted) throw new RenderError('aborted', 'The render was cancelled.');
          chosen = { ...frames, parts: frames.byLoudness(loudness) };
        }
        const parts = await listenToParts(outputDir, { ...raw, outputDir }, chosen, this.options.identity);
        const status = await this.ask(parent, { folder: outputDir, step: 'render', denoise: raw.denoise }, 1, left(), parts.sockets).finally(() => parts.close());
        this.served(parent);
        if (frames.signal?.aborted) throw new RenderError('aborted', 'The render was cancelled.');
        const missing = chosen.parts.flat().filter((frame) => !parts.reported.has(frame));
        if (status === 'ok' && missing.length === 0) return { folder: outputDir, log: parts.info, frames: chosen.parts.flat().sort((a, b) => a - b), done };
        // Each part's own output (part-<i>-log.txt) after its control lines.
        const logTail = [...parts.logTail, ...(await childLogs(outputDir))];
        const userError = parts.userError();
        if (status === 'error 2' && userError) throw new RenderError('invalid-input', userError, { logTail });
        // SIGALRM: a child past its step's limit (render/scenes/protocol.py, time_limit).
        if (status === 'signal 14' && parts.overrun()) throw new RenderError('invalid-input', parts.overrun()!, { logTail });
        if (status === 'timeout') throw new RenderError('timed-out', args.cornerMark ? previewTimedOut(deadlineMs) : renderTimedOut(deadlineMs), { logTail });
        throw new RenderError('render-failed', RENDER_FAILED_MESSAGE, { logTail: [`child ${status}${missing.length ? `, frames not written: ${missing.join(', ')}` : ''}`, ...logTail] });
      }
      let status = await this.ask(parent, { folder: outputDir, step: 'render', denoise: raw.denoise }, bands, left());
      if (status === 'ok' && raw.denoise) {
        // The bands' noisy passes, stitched and denoised here (as a split still's regions), then saved by one more child.
        const denoisedFile = path.join(outputDir, DENOISED_FILE);
        // A region's bands share its rendered rows (its own and its margins: render/scenes/protocol.py, rendered_rows).
        const rows = raw.region ? renderedRowsOf(raw.region, raw.resolutionY) : raw.resolutionY;
        await denoiseBands(outputDir, bands, raw.resolutionX, rows, denoisedFile, denoiseQualityOf(raw));
        status = await this.ask(parent, { folder: outputDir, step: 'save', denoise: false, denoisedFile }, 1, left());
      }
      this.served(parent);
      // One child's control lines (control.txt), or each band's and the join's or save's (band-<i>-control.txt, join-control.txt, save-control.txt).
      const written = await readdir(outputDir);
      const controls = await Promise.all(written.filter((name) => name.endsWith('control.txt')).map((name) => readSmall(path.join(outputDir, name))));
      const lines = controls.join('\n').split('\n');
      const info = lines.filter((line) => line.startsWith('INFO ')).map((line) => line.slice(5));
      const userError = lines.find((line) => line.startsWith('ERROR '))?.slice(6).trim();
      if (status === 'ok') return { folder: outputDir, log: info, done };
      const logTail = [...info, ...(await childLogs(outputDir))];
      if (status === 'error 2' && userError) throw new RenderError('invalid-input', userError, { logTail });
      const timedOut = args.cornerMark ? previewTimedOut(deadlineMs) : renderTimedOut(deadlineMs);
      if (status === 'timeout') throw new RenderError('timed-out', timedOut, { logTail });
      throw new RenderError('render-failed', RENDER_FAILED_MESSAGE, { logTail: [`child ${status}`, ...logTail] });
    } catch (error) {
      await done();
      throw error;
    } finally {
      this.idle = setTimeout(() => void this.stop('idle'), this.options.idleMs ?? IDLE_MS);
      this.idle.unref();
    }
  }

  /**
   * The loudness of a request's audio per video frame, measured by one child of the parent (the "levels" step) in the
   * request's folder, as the request's user: the customer's file is read there only. The customer's own error (their
   * file is not audio, or silent) and the request's deadline end the request as its render would; a measure that failed
   * otherwise, or a file that is not a list of levels, is undefined (logged): the render goes on without it.
   */
  private async measureLoudness(parent: Parent, outputDir: string, leftMs: number, deadlineMs: number, preview: boolean): Promise<number[] | undefined> {
    const status = await this.ask(parent, { folder: outputDir, step: 'levels', denoise: false }, 1, leftMs);
    if (status === 'ok') {
      const levels = parseLevels(await readOutput(path.join(outputDir, LEVELS_FILE), MAX_LEVELS_BYTES).catch(() => undefined));
      if (levels) return levels;
    }
    const lines = (await readSmall(path.join(outputDir, 'levels-control.txt'))).split('\n');
    const userError = lines.find((line) => line.startsWith('ERROR '))?.slice(6).trim();
    const logTail = [...lines.filter((line) => line.startsWith('INFO ')).map((line) => line.slice(5)), ...(await childLogs(outputDir))];
    if (status === 'error 2' && userError) throw new RenderError('invalid-input', userError, { logTail });
    if (status === 'timeout') throw new RenderError('timed-out', preview ? previewTimedOut(deadlineMs) : renderTimedOut(deadlineMs), { logTail });
    log.warn(`The ${this.options.scene.slug} server did not measure a request's audio: its frames are not chosen by loudness`, { status, logTail });
    return undefined;
  }

  /** A request served (its steps count once): the parent is replaced once it has served its bound. */
  private served(parent: Parent): void {
    parent.forks += 1;
    if (parent.forks >= (this.options.maxForks ?? MAX_FORKS)) this.replace(parent, `served ${parent.forks} requests`);
  }

  /**
   * One RENDER request to the parent: its status once its children have ended. A parent that has not answered by the
   * deadline plus ANSWER_GRACE_MS is replaced (with its children) and the request fails as ours: nothing a child can do
   * to its parent (SIGSTOP, where they share a user) holds the caller, or the next request, for longer.
   */
  private async ask(parent: Parent, request: ParentRequest, bands: number, deadlineMs: number, parts?: { frames: number[]; socket: string }[]): Promise<string> {
    // A parent that has ended answers nothing more (its close already answered what was pending).
    if (parent.ended) return `server ended: ${parent.ended}`;
    const id = randomUUID();
    const limitMs = deadlineMs + ANSWER_GRACE_MS;
    parent.asking = true;
    const status = await new Promise<string | undefined>((resolve) => {
      const timer = setTimeout(() => {
        parent.pending.delete(id);
        resolve(undefined);
      }, limitMs);
      parent.pending.set(id, (answer) => {
        clearTimeout(timer);
        resolve(answer);
      });
      const user = this.options.identity ? [this.options.identity.uid, this.options.identity.gid] : null;
      parent.channel.write(`RENDER ${JSON.stringify({ id, ...request, deadline: deadlineMs / 1000, user, bands, ...(parts ? { parts } : {}) })}\n`);
    });
    if (status === undefined) {
      const seconds = (ms: number) => Math.round(ms / 100) / 10;
      const why = `did not answer a request within ${seconds(limitMs)} s (its deadline ${seconds(deadlineMs)} s and ${seconds(ANSWER_GRACE_MS)} s of grace)`;
      log.error(`The ${this.options.scene.slug} scene server ${why}: replaced`, { pid: parent.process.pid });
      this.replace(parent, why);
      parent.asking = false;
      throw new RenderError('render-failed', RENDER_FAILED_MESSAGE, { logTail: [`the ${this.options.scene.slug} server ${why} and was replaced`] });
    }
    parent.asking = false;
    return status;
  }

  /**
   * After a restore from a snapshot (snapshotOf in render/entries/common.ts): the running parent seeds Python's and numpy's generators again
   * from `seed` (render/scenes/warm.py, RESEED), in line after any request. Resolves with a digest of their new states,
   * or undefined when no parent runs (the next one starts after the restore and seeds its own). A parent that does not
   * take its seed within RESEED_MS is ended: it must not fork a child with the snapshot's state.
   */
  async reseed(seed: Buffer): Promise<string | undefined> {
    const turn = this.line.then(async () => {
      const parent = await this.parent?.catch(() => undefined);
      if (!parent || parent.ended) return undefined;
      const id = randomUUID();
      const status = await new Promise<string>((resolve) => {
        const timer = setTimeout(() => (parent.pending.delete(id), resolve('no answer')), RESEED_MS);
        parent.pending.set(id, (answer) => (clearTimeout(timer), resolve(answer)));
        parent.channel.write(`RESEED ${JSON.stringify({ id, seed: seed.toString('hex') })}\n`);
      });
      const digest = /^ok ([0-9a-f]+)$/.exec(status)?.[1];
      if (digest) return digest;
      this.replace(parent, `did not take its seed after a restore (${status})`);
      return undefined;
    });
    this.line = turn.catch(() => {});
    return turn;
  }

  /** Stops the parent (the next request starts another). */
  async stop(why = 'stopped'): Promise<void> {
    clearTimeout(this.idle);
    const parent = await this.parent?.catch(() => undefined);
    if (parent) this.replace(parent, why);
  }

  private running(): Promise<Parent> {
    if (!this.parent) {
      this.parent = this.start();
      this.parent.catch(() => (this.parent = undefined));
    }
    return this.parent;
  }

  private replace(parent: Parent, why: string): void {
    if (!parent.ended) {
      parent.ended = why;
      const pid = parent.process.pid;
      // Its children, found while they are still its own (once it is gone they are init's): each leads a session.
      const children = pid ? childrenOf(pid) : [];
      parent.process.kill('SIGKILL');
      for (const child of children) killSession(child);
      // Mid-request, as root: what the children started runs as the scene's tool user, which only they use.
      if (parent.asking && this.options.identity) {
        const uid = this.options.identity.uid;
        this.sweeping = this.sweeping.then(() => sweepUser(uid)).catch((error: unknown) => log.error(`The ${this.options.scene.slug} scene server's user was not swept`, { uid, error }));
      }
    }
    if (this.parent) {
      const current = this.parent;
      void current.then((running) => running === parent && this.parent === current && (this.parent = undefined), () => {});
    }
  }

  private async start(): Promise<Parent> {
    await this.sweeping;
    const blender = await findBlender();
    if (!blender) throw new RenderError('blender-missing', BLENDER_MISSING_MESSAGE);
    const { scene, threads } = this.options;
    this.starts += 1;
    // The parent's own folder: the scene scripts (copied, as for a fresh render) and its warm-up render.
    const home = await mkdtemp(path.join(tmpdir(), `warm-${scene.slug}-`));
    const script = await copySceneScripts(path.dirname(sceneScriptPath(scene.slug)), path.join(home, 'scenes'), scene.slug);
    const warmUp = path.join(home, 'warm-up.json');
    // Tiny: the warm-up is for loading Blender's modules, Cycles and the fonts, not for its picture.
    const defaults = scriptArgsOf({ sceneId: scene.id, mode: 'still', resolutionX: 64, resolutionY: 36, isTest: true, samples: 1, denoise: false, outputDir: path.join(home, 'out') }, scene);
    await writeFile(warmUp, JSON.stringify({ ...defaults, script }));
    const tool = serverProcess(blender.path, ['-b', '--factory-startup', '-noaudio', ...(threads ? ['-t', String(threads)] : []), '--python', path.join(path.dirname(script), 'warm.py'), '--', warmUp]);
    const child = spawn(tool.command, tool.args, { stdio: ['ignore', 'pipe', 'pipe', 'pipe'], ...tool.options });
    this.spawnedPid = child.pid;
    const channel = child.stdio[3] as Duplex;
    channel.on('error', () => {});
    const { lines: tail, remember } = keepLogTail();
    // readline hands its input's errors on to the interface, where one no listener takes ends this process: a parent
    // killed with a request still unread resets its channel (ECONNRESET). Its close answers what was pending.
    const ignore = () => {};
    createInterface({ input: child.stdout! }).on('line', remember).on('error', ignore);
    createInterface({ input: child.stderr! }).on('line', remember).on('error', ignore);
    const parent: Parent = { process: child, pid: 0, channel, pending: new Map(), forks: 0, asking: false };
    const ready = new Promise<Parent>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new RenderError('render-failed', RENDER_FAILED_MESSAGE, { logTail: [`the ${scene.slug} server did not start in ${START_MS / 1000} s`, ...tail] }));
      }, START_MS);
      const lines = createInterface({ input: channel });
      lines.on('error', ignore);
      lines.on('line', (line) => {
        const [kind, id, ...status] = line.split(' ');
        if (kind === 'READY') {
          clearTimeout(timer);
          parent.pid = Number(id);
          parent.passes = status[0] === 'passes';
          this.readyPid = parent.pid;
          this.writesPasses = parent.passes;
          if (!parent.passes) log.warn(`The ${scene.slug} scene server's children cannot write passes: its pictures are not denoised`);
          resolve(parent);
        } else if (kind === 'DONE' && parent.pending.has(id)) {
          parent.pending.get(id)!(status.join(' '));
          parent.pending.delete(id);
        } else if (kind !== 'INFO' && kind !== 'PROGRESS') {
          // Only the parent writes here (a child's channel is closed): anything else is an anomaly.
          this.replace(parent, `unexpected line on its channel: ${line.slice(0, 80)}`);
        }
      });
      child.once('error', (error) => {
        clearTimeout(timer);
        reject(new RenderError('blender-missing', BLENDER_MISSING_MESSAGE, { logTail: [String(error)] }));
      });
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        if (this.readyPid === parent.pid) this.readyPid = undefined;
        if (this.spawnedPid === child.pid) this.spawnedPid = undefined;
        void rm(home, { recursive: true, force: true });
        const why = parent.ended ?? `exited with ${signal ?? `code ${code}`}`;
        if (!parent.ended) log.error(`The ${scene.slug} scene server ended`, { why, tail });
        parent.ended = why;
        for (const answer of parent.pending.values()) answer(`server ended: ${why}`);
        parent.pending.clear();
        reject(new RenderError('render-failed', RENDER_FAILED_MESSAGE, { logTail: [`the ${scene.slug} server ${why}`, ...tail] }));
        this.replace(parent, why);
      });
    });
    return ready;
  }
}

/** A "levels" child's file: a list of finite levels, none negative; anything else is undefined. */
function parseLevels(file: Buffer | undefined): number[] | undefined {
  if (!file) return undefined;
  try {
    const levels: unknown = JSON.parse(file.toString('utf8'));
    return Array.isArray(levels) && levels.every((level) => typeof level === 'number' && Number.isFinite(level) && level >= 0) ? (levels as number[]) : undefined;
  } catch {
    return undefined;
  }
}

/** A live preview's (a still or a strip) time-out, in the customer's words: seconds, not a render's minutes. */
const previewTimedOut = (deadlineMs: number) => `The preview took longer than ${Math.round(deadlineMs / 100) / 10} s and was stopped.`;

/** How a process is held, if it is: stopped (State T, or t for a tracer's stop, in /proc/<pid>/stat) or traced (a TracerPid). */
function heldState(pid: number): string | undefined {
  const stat = readFileSafely(`/proc/${pid}/stat`);
  // The state follows the command's name, which is in parentheses and may itself hold spaces or parentheses.
  const state = stat.slice(stat.lastIndexOf(')') + 1).trim().split(' ')[0];
  if (state === 'T' || state === 't') return `stopped (state ${state})`;
  const tracer = /^TracerPid:\s+(\d+)/m.exec(readFileSafely(`/proc/${pid}/status`))?.[1];
  return tracer && tracer !== '0' ? `traced (by ${tracer})` : undefined;
}

/** The processes whose parent is pid (from /proc: a replaced parent's children, read before it is killed). */
function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const parentPid = /^PPid:\s+(\d+)/m.exec(readFileSafely(`/proc/${name}/status`))?.[1];
    if (Number(parentPid) === pid) children.push(Number(name));
  }
  return children;
}

function readFileSafely(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** Kills a child's session (a warm child leads its own) and the child itself, should it not lead one yet. */
function killSession(pid: number): void {
  for (const target of [-pid, pid]) {
    try {
      process.kill(target, 'SIGKILL');
    } catch {
      // gone already, or not a group
    }
  }
}

/** Kills every process of uid until none is left (as root, a replaced parent's tool user); throws past 2 s. */
async function sweepUser(uid: number): Promise<void> {
  for (const started = Date.now(); ; ) {
    const left = readdirSync('/proc').filter((name) => /^\d+$/.test(name) && ownerOf(name) === uid).map(Number);
    if (left.length === 0) return;
    if (Date.now() - started > 2_000) throw new Error(`processes of uid ${uid} left: ${left.join(', ')}`);
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A live process's real uid (undefined once it is a zombie: it runs nothing). */
function ownerOf(pid: string): number | undefined {
  const status = readFileSafely(`/proc/${pid}/status`);
  if (/^State:\s+[ZX]/m.test(status)) return undefined;
  const uid = /^Uid:\s+(\d+)/m.exec(status)?.[1];
  return uid === undefined ? undefined : Number(uid);
}

/**
 * One Unix socket per part in the request's folder (the child's user's), each taking one connection: its child's
 * control channel. Closing them ends what is left of the children at their next control line.
 */
async function listenToParts(outputDir: string, args: SceneArgs, frames: WarmFrames, identity: ToolIdentity | undefined) {
  const servers: Server[] = [];
  const connections: Socket[] = [];
  const reported = new Set<number>();
  const errors: (() => string | null)[] = [];
  const info: string[] = [];
  const { lines: controlTail, remember } = keepLogTail();
  // A step under its limit, per part: a child ended by its alarm was past it.
  const steps = new Map<number, ControlStep & { since: number }>();
  const denoising = { last: Promise.resolve() };
  const close = () => {
    for (const connection of connections) connection.destroy();
    for (const server of servers) server.close();
  };
  frames.signal?.addEventListener('abort', close, { once: true });
  const oneThread = denoiseOneThread(args, frames.parts.filter((part) => part.length > 0).length);
  const sockets = await Promise.all(
    frames.parts.map(async (partFrames, index) => {
      const socket = path.join(outputDir, `part-${index}.sock`);
      let taken = false;
      const server = createServer((connection) => {
        // One connection per part: its child's, the first.
        server.close();
        if (taken) return connection.destroy();
        taken = true;
        connections.push(connection);
        const part = { ...args, frames: partFrames };
        const read = readControl(connection, part, {
          onProgress: (progress) => {
            reported.add(progress.frame);
            frames.onProgress(progress);
          },
          onLog: (message, level) => {
            if (level === 'info') info.push(message);
            frames.onLog?.(message, level);
          },
          onLimit: (step) => (step ? steps.set(index, { ...step, since: Date.now() }) : steps.delete(index)),
          remember,
          denoising,
          denoiseOneThread: oneThread,
        });
        errors.push(read.userError);
      });
      servers.push(server);
      await new Promise<void>((resolve, reject) => server.once('error', reject).listen(socket, resolve));
      if (identity) await chown(socket, identity.uid, identity.gid);
      return { frames: partFrames, socket };
    }),
  );
  return {
    sockets,
    reported,
    info,
    logTail: controlTail,
    userError: () => errors.map((error) => error()).find(Boolean) ?? undefined,
    /** The message of a step a child was still in when it ended, past its limit. */
    overrun: () => [...steps.values()].find((step) => Date.now() - step.since >= step.seconds * 1000)?.message,
    close: () => {
      frames.signal?.removeEventListener('abort', close);
      close();
    },
  };
}

/** The still's denoised frame, written by this process into the request's folder for the saving child. */
const DENOISED_FILE = 'denoised.clean.f32';

/** Stitches the bands' passes (band-<i>.exr, read without following a link) and denoises the frame into denoisedFile. */
async function denoiseBands(folder: string, bands: number, width: number, height: number, denoisedFile: string, quality: DenoiseQuality): Promise<void> {
  try {
    const passes = [];
    for (let band = 0; band < Math.max(1, bands); band += 1) passes.push(await readExr(path.join(folder, `band-${band}.exr`)));
    await denoiseImage(await sharedDenoiser(quality), stitchRegions(passes, width, height), denoisedFile);
  } catch (error) {
    throw new RenderError('render-failed', RENDER_FAILED_MESSAGE, { logTail: [`the bands were not denoised: ${(error as Error).message}`] });
  }
}

/** The last lines the children printed (their *log.txt in the request's folder), in order. */
async function childLogs(folder: string): Promise<string[]> {
  const names = (await readdir(folder).catch(() => [])).filter((name) => name.endsWith('log.txt')).sort();
  const logs = await Promise.all(names.map((name) => readSmall(path.join(folder, name))));
  return logs.join('\n').split('\n').slice(-LOG_TAIL_LINES);
}

/** A small text file a child wrote in its folder, read without following a link it may have planted. */
async function readSmall(file: string, limit = 64 * 1024): Promise<string> {
  const handle = await openToRead(file).catch(() => undefined);
  if (!handle) return '';
  try {
    const buffer = Buffer.alloc(limit);
    const { bytesRead } = await handle.read(buffer, 0, limit, 0);
    return buffer.subarray(0, bytesRead).toString('utf8');
  } finally {
    await handle.close();
  }
}

/** A request's output, read without following a link: at most `limit` bytes. */
export async function readOutput(file: string, limit: number): Promise<Buffer> {
  const handle = await openToRead(file);
  try {
    const { size } = await handle.stat();
    if (size > limit) throw new Error(`${path.basename(file)} is ${size} bytes, more than ${limit}`);
    const buffer = Buffer.alloc(size);
    const { bytesRead } = await handle.read(buffer, 0, size, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Sets of servers one process may keep: the live previews' (lane 0) and the local stack's lanes for paid stills (1 + the lane's index). */
const LANES = MAX_TOOL_SLOTS + 1;

/**
 * The tool user of a scene's server, where this process is root: above the local pool's slots
 * (RENDER_TOOL_UID plus 0 to MAX_TOOL_SLOTS - 1), one per scene, per lane (a set of servers) and per
 * process (by its pid), so neither two lanes nor two stacks on one machine (a developer's and a test
 * run) ever sweep each other's children.
 */
export function sceneToolIdentity(sceneId: number, lane = 0, env: NodeJS.ProcessEnv = process.env): ToolIdentity | undefined {
  const base = workerToolIdentity({ ...env, RENDER_TOOL_SLOT: '0' })?.uid;
  if (base === undefined) return undefined;
  if (!Number.isInteger(lane) || lane < 0 || lane >= LANES) throw new RangeError(`lane ${lane} of ${LANES}`);
  const uid = base + MAX_TOOL_SLOTS + ((process.pid % 64) * LANES + lane) * 8 + (sceneId % 8);
  return { uid, gid: uid };
}

/** The servers of this process, one per scene, made on first use. */
export class WarmScenes {
  private readonly servers = new Map<number, WarmScene>();

  constructor(private readonly settings: { threads?: number; maxForks?: number; idleMs?: number; bands?: number; lane?: number } = {}) {}

  /** A preview's bands: the cores it may use (WarmSceneOptions.bands). */
  get bands(): number {
    return this.settings.bands ?? 1;
  }

  scene(sceneId: number): WarmScene {
    let server = this.servers.get(sceneId);
    if (!server) {
      const scene = getScene(sceneId);
      if (!scene) throw new RenderError('invalid-input', `Unknown scene ${sceneId}.`);
      server = new WarmScene({ scene, identity: sceneToolIdentity(sceneId, this.settings.lane), ...this.settings });
      this.servers.set(sceneId, server);
    }
    return server;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.servers.values()].map((server) => server.stop()));
  }

  /**
   * Starts the parents of these scenes now, as many at a time as there are cores (a function's Init, before its
   * snapshot: seven at once on the preview function's one vCPU would each take seven times as long to start). One that
   * does not start is logged and left to start on first use, as without SnapStart: it does not fail the others.
   */
  async warm(sceneIds: number[], atOnce = availableParallelism()): Promise<void> {
    const waiting = [...sceneIds];
    const starter = async () => {
      for (let sceneId = waiting.shift(); sceneId !== undefined; sceneId = waiting.shift()) {
        await this.scene(sceneId).warm().catch((error: unknown) => log.error('A scene server did not start ahead of its first request: it starts on first use', { sceneId, error }));
      }
    };
    await Promise.all(Array.from({ length: Math.max(1, Math.min(atOnce, waiting.length)) }, starter));
  }

  /** Each running parent takes a seed of its own (`seedOf`, called once per parent): after a restore from a snapshot. */
  async reseed(seedOf: () => Buffer): Promise<(string | undefined)[]> {
    return Promise.all([...this.servers.values()].map((server) => server.reseed(seedOf())));
  }

  /**
   * The parents that are running or starting (the preview and render functions keep them between invocations: a
   * parent starting in the background for the next test still has opened no customer's file either).
   */
  pids(): number[] {
    return [...this.servers.values()].flatMap((server) => (server.spawnedPid ? [server.spawnedPid] : []));
  }
}
