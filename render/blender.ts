/**
 * Drives Blender for one scene render.
 *
 * Each catalogue scene is a Python script, render/scenes/<slug>.py, that builds the scene
 * from nothing and renders it (see render/scenes/protocol.py for the protocol):
 *
 *   blender -b --factory-startup -noaudio --python render/scenes/<slug>.py -- args.json
 *
 * File descriptor 3 (a channel of its own) carries one machine-readable line per event;
 * stdout and stderr are only logged, so a name in a user's file that Blender prints
 * (with a line break and a forged control line in it) is a log line and nothing more:
 *   PROGRESS frame=<n> done=<k> total=<t>   after each frame file is written
 *   INFO <text>                             a log line
 *   ERROR <message>                         a user-readable error; Blender then exits with 2
 *   LIMIT <seconds> <message>               the next step (a model's import) must end in time, or
 *   LIMIT off                               Blender is stopped and <message> is the user's error
 *   DENOISE {"frame","exr","raw"}           frame's passes written; the worker denoises them and
 *                                           answers DENOISED (or FAILED <why>) on fd 3; it
 *                                           opens only the files of a frame this run renders
 * Any other non-zero exit is our failure (a bug or a crash), not the user's.
 */
import { spawn } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { BLENDER_MISSING_MESSAGE, findBlender } from './blender-install';
import { getScene, type SceneDefinition } from '#shared/catalogue';
import { resolveOptions, type OptionValues } from '#shared/options';
import { frameFile, REGION_FILE, sceneContract, STILL_FILE } from '#shared/render-contract';
import { MAX_IMAGE_PIXELS, MAX_IMAGE_SIDE } from '#shared/upload-limits';
import { samplingFor, scenePolicy } from '#shared/render-manifest';
import { MAX_MEDIA_DURATION_SECONDS } from '#shared/frames';
import { renderedResolution } from '#shared/render-policy';
import type { RenderMode } from '#shared/scene-types';
import type { Alignment } from '#shared/schemas';
import { prepareForTool, toolProcess } from './tool-environment';
import type { Duplex } from 'node:stream';
import { answerDenoiseRequest, denoiseQualityOf, parseDenoiseRequest, sharedDenoiser, type DenoiseRequest } from './denoiser';

export { BLENDER_MISSING_MESSAGE, findBlender } from './blender-install';

/** The JSON a scene script reads (args.json). */
export interface SceneArgs {
  sceneId: number;
  customText?: string | null;
  /**
   * As the job stores them ('key:value;key:value') or already parsed; missing keys take the
   * scene's defaults. The script receives them resolved, as a JSON object.
   */
  options?: string | OptionValues;
  /** Absolute path of the uploaded file on this machine. */
  inputFile?: string | null;
  resolutionX: number;
  resolutionY: number;
  mode: RenderMode;
  frameStart?: number;
  /** Audio scenes may omit it: the animation then ends with the audio. */
  frameEnd?: number | null;
  /** Render only these frames (resume renders the missing ones). Animation only. */
  frames?: number[];
  /** Where the user's image sits on a poster (Bus Stop); see render/scenes/bus-stop.py. */
  alignment?: Alignment | null;
  /** Test render: longer side capped (the manifest's test size), few samples, PREVIEW watermark. */
  isTest?: boolean;
  /** A live preview, not a free test render: only its time-limit message differs (every test render has its PREVIEW mark in a corner). */
  cornerMark?: boolean;
  /** Cycles samples (the maximum, with adaptive sampling); default from the render manifest. */
  samples?: number;
  /** Adaptive sampling's noise threshold; default from the render manifest (0: Blender's automatic one). */
  noiseThreshold?: number;
  /** The most audio the scene decodes, in seconds: the duration the job was priced for (never more than the longest upload allowed). */
  maxAudioSeconds?: number;
  /** Denoise every frame with OpenImageDenoise's weights (default: finals yes, test renders no); false renders as Blender alone would. */
  denoise?: boolean;
  outputDir: string;
  /** Leave the background out: a transparent film and RGBA frames (scenes that can drop their background only). */
  transparent?: boolean;
  /** Bus Stop only: render the empty poster frame used as the alignment template. */
  posterTemplate?: boolean;
  /**
   * A still's region only (rows from the top, bottom excluded; render/region-stitch.ts): Cycles
   * renders that border with `margin` rows more above and below, cropped, the band is denoised,
   * and the script saves the region's rows alone as region.png, final rows the finishing step joins.
   */
  region?: { top: number; bottom: number; margin: number };
  /** The finishing step of a split still: the stitched, denoised frame (raw float RGBA, rows from the bottom) the script saves as the still instead of rendering. */
  denoisedFile?: string;
}

export interface RenderProgress {
  frame: number;
  done: number;
  total: number;
  /** The file just written. */
  file: string;
}

export type RenderLogLevel = 'info' | 'error' | 'blender';

export interface RunSceneOptions {
  onProgress?: (progress: RenderProgress) => void;
  /** INFO lines as 'info', ERROR lines as 'error', everything else Blender prints as 'blender'. */
  onLog?: (message: string, level: RenderLogLevel) => void;
  signal?: AbortSignal;
  /** The catalogue entry to render with; defaults to the catalogue's scene of args.sceneId. */
  scene?: ScriptScene;
  /** Render threads (Blender's -t): workers sharing a machine split its cores instead of fighting over them. */
  threads?: number;
  /** Wall-clock limit: Blender is stopped past it and the render fails with kind 'timed-out'. */
  timeoutMs?: number;
}

export type RenderErrorKind =
  /** No usable Blender: userMessage is BLENDER_MISSING_MESSAGE. */
  | 'blender-missing'
  /** The user's input cannot be rendered (bad upload, unsupported format): tell them. */
  | 'invalid-input'
  /** Blender crashed or a scene script failed: our problem, details in logTail. */
  | 'render-failed'
  /** The AbortSignal fired. */
  | 'aborted'
  /** The render ran past its wall-clock limit. */
  | 'timed-out';

export class RenderError extends Error {
  constructor(
    readonly kind: RenderErrorKind,
    /** Safe to show to the user as is. */
    readonly userMessage: string,
    readonly details: { exitCode?: number | null; signal?: string | null; logTail?: string[] } = {},
  ) {
    super(userMessage);
    this.name = 'RenderError';
  }
}


const RENDER_FAILED_MESSAGE = 'The render failed unexpectedly. Our team has been notified.';
export const LOG_TAIL_LINES = 40;
const KILL_GRACE_MS = 5_000;

/** A failure's log tail: the last LOG_TAIL_LINES lines remembered. */
export function keepLogTail(): { lines: string[]; remember: (line: string) => void } {
  const lines: string[] = [];
  return {
    lines,
    remember: (line) => {
      lines.push(line);
      if (lines.length > LOG_TAIL_LINES) lines.shift();
    },
  };
}

/** A render stopped at its time limit: what the customer reads (a fresh Blender's or a warm server's). */
export const renderTimedOut = (limitMs: number) => `The render took longer than its limit of ${Math.round(limitMs / 60_000)} min and was stopped.`;

/**
 * The scene scripts ship next to this module; RENDER_SCENES_DIR overrides it for bundled
 * builds (esbuild moves this file, not the .py scripts).
 */
export function sceneScriptPath(slug: string): string {
  const dir = process.env.RENDER_SCENES_DIR ?? fileURLToPath(new URL('./scenes/', import.meta.url));
  return path.join(dir, `${slug}.py`);
}

/**
 * The scene scripts (a scene's and the modules it imports beside it), copied into the
 * render's own folder, which is handed to the tools: Blender reads them there wherever the
 * checkout lives, a private home folder included, which the tools' user cannot enter.
 * Returns the scene's script in the copy.
 */
export async function copySceneScripts(from: string, to: string, slug: string): Promise<string> {
  await mkdir(to);
  const scripts = (await readdir(from, { withFileTypes: true })).filter((entry) => entry.isFile() && entry.name.endsWith('.py'));
  await Promise.all(scripts.map((entry) => copyFile(path.join(from, entry.name), path.join(to, entry.name))));
  return path.join(to, `${slug}.py`);
}

type ScriptScene = Pick<SceneDefinition, 'id' | 'slug' | 'optionsConfig'>;

/**
 * The args.json a scene script reads: the render's arguments, its options resolved, its
 * scene's contract, and the render policy from the manifest already applied (the test
 * size cap, the text limit, the sampling), so the script holds no policy of its own.
 */
export function scriptArgsOf(args: SceneArgs, scene: ScriptScene) {
  const policy = scenePolicy(scene.id);
  const denoise = args.denoise ?? true;
  const sampling = samplingFor(scene.id, { isTest: args.isTest, denoise });
  const { x: resolutionX, y: resolutionY } = renderedResolution({ resolution_x: args.resolutionX, resolution_y: args.resolutionY, isTest: Boolean(args.isTest) });
  return {
    ...args,
    customText: args.customText == null ? args.customText : Array.from(args.customText).slice(0, policy.textLimit).join(''),
    resolutionX,
    resolutionY,
    denoise,
    samples: args.samples ?? sampling.samples,
    noiseThreshold: args.noiseThreshold ?? sampling.noiseThreshold,
    // The manifest's minimum goes with its own sampling only: a caller's samples or threshold are rendered as asked.
    minSamples: args.samples === undefined && args.noiseThreshold === undefined ? sampling.minSamples : 0,
    options: resolveOptions(scene, args.options ?? {}),
    scene: sceneContract(scene),
    imageLimits: { maxPixels: MAX_IMAGE_PIXELS, maxSide: MAX_IMAGE_SIDE },
    maxAudioSeconds: Math.min(args.maxAudioSeconds ?? MAX_MEDIA_DURATION_SECONDS, MAX_MEDIA_DURATION_SECONDS),
  };
}


/** The file a scene writes for a still, or for one frame of an animation. */
export function outputFile(outputDir: string, mode: RenderMode, frame = 1): string {
  return path.join(outputDir, mode === 'still' ? STILL_FILE : frameFile(frame));
}


/**
 * Renders one scene. Resolves with the files written by this run (still.png, or the
 * frames in render order); rejects with a RenderError.
 */
export async function runScene(args: SceneArgs, options: RunSceneOptions = {}): Promise<{ outputs: string[] }> {
  const { signal } = options;
  if (signal?.aborted) throw new RenderError('aborted', 'The render was cancelled.');
  const scene = options.scene ?? getScene(args.sceneId);
  if (!scene) throw new RenderError('invalid-input', `Unknown scene ${args.sceneId}.`);
  const blender = await findBlender();
  if (!blender) throw new RenderError('blender-missing', BLENDER_MISSING_MESSAGE);

  const denoise = args.denoise ?? true;
  if (denoise) {
    // Loaded before Blender starts, so a broken install fails at once instead of after the first frame.
    await sharedDenoiser(denoiseQualityOf(args)).catch((error: Error) => {
      throw new RenderError('render-failed', RENDER_FAILED_MESSAGE, { logTail: [`denoiser failed: ${error.message}`] });
    });
  }
  await mkdir(args.outputDir, { recursive: true });
  const workDir = await mkdtemp(path.join(tmpdir(), 'render-args-'));
  const argsFile = path.join(workDir, 'args.json');
  await writeFile(argsFile, JSON.stringify(scriptArgsOf({ ...args, denoise }, scene), null, 2));
  const script = await copySceneScripts(path.dirname(sceneScriptPath(scene.slug)), path.join(workDir, 'scenes'), scene.slug);
  await prepareForTool([args.outputDir, workDir], [args.inputFile, args.denoisedFile]);
  try {
    return await runBlender(blender.path, script, argsFile, args, options);
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/**
 * A DENOISE request names files the worker will read and write: only the passes and
 * the clean buffer of a frame this run renders, in its output folder, are accepted.
 */
function ownFrameRequest(request: DenoiseRequest, args: SceneArgs, rendersFrame: (frame: number) => boolean): DenoiseRequest {
  // The scene writes each frame as <frame>.partial.png first (render/scenes/protocol.py, render_frames).
  const stem = outputFile(args.outputDir, args.mode, request.frame).replace(/\.png$/, '.partial');
  if (!rendersFrame(request.frame) || request.exr !== `${stem}.passes.exr` || request.raw !== `${stem}.clean.f32`) {
    throw new Error(`refused a DENOISE request for files this render does not write: ${JSON.stringify(request)}`);
  }
  return request;
}

/** A step's own limit (LIMIT <seconds> <message>): past it the render is stopped and message is the user's error. */
export interface ControlStep {
  seconds: number;
  message: string;
}

export interface ControlHooks extends Pick<RunSceneOptions, 'onProgress' | 'onLog'> {
  /** A step starts under a limit, or (undefined) the step under one ended. */
  onLimit: (step: ControlStep | undefined) => void;
  /** A line for the log's tail. */
  remember: (line: string) => void;
  /** Denoising shared with other channels (a warm request's parts): one frame at a time in all of them. */
  denoising?: { last: Promise<void> };
  /** Its frames denoised on one thread (denoiseOneThread): the other channels' children hold the cores. */
  denoiseOneThread?: boolean;
}

/**
 * Reads one scene script's control lines (the protocol above) from its channel and answers its DENOISE
 * requests there: a fresh Blender's fd 3, or a warm server's child's socket (render/warm-scene.ts). The
 * files it reported (each a file of a frame args gives it, on disk), and the user's error once it told one.
 */
export function readControl(control: Duplex, args: SceneArgs, { onProgress, onLog, onLimit, remember, denoising = { last: Promise.resolve() }, denoiseOneThread = false }: ControlHooks): { outputs: string[]; userError: () => string | null } {
  const outputs: string[] = [];
  let userError: string | null = null;
  // Blender may exit before reading an answer; that is reported by its exit code, not here.
  control.on('error', () => {});
  // A still's scene picks its frame; an animation renders the frames asked for, or its range (an audio scene's ends with the audio).
  const rendersFrame = (frame: number) =>
    args.mode === 'still' || (args.frames ? args.frames.includes(frame) : frame >= (args.frameStart ?? 1) && (args.frameEnd == null || frame <= args.frameEnd));
  // readline hands its input's errors on to the interface, where one no listener takes ends this process: a warm child
  // killed at its deadline resets its socket (ECONNRESET). Its exit status reports it.
  createInterface({ input: control }).on('error', () => {}).on('line', (line) => {
    const progress = /^PROGRESS frame=(\d+) done=(\d+) total=(\d+)$/.exec(line);
    if (progress) {
      const [frame, done, total] = progress.slice(1).map(Number);
      const file = args.region ? path.join(args.outputDir, REGION_FILE) : outputFile(args.outputDir, args.mode, frame);
      // Only a frame this run was given counts, once its file is on disk: the worker stores and records what is reported.
      if (!rendersFrame(frame) || !lstatSync(file, { throwIfNoEntry: false })?.isFile()) {
        const why = `refused PROGRESS for frame ${frame}: ${rendersFrame(frame) ? 'its file was not written' : 'this render was not given that frame'}`;
        remember(why);
        onLog?.(why, 'error');
        return;
      }
      outputs.push(file);
      onProgress?.({ frame, done, total, file });
    } else if (line.startsWith('LIMIT ')) {
      const step = /^LIMIT (\d+) (.+)$/.exec(line);
      onLimit(step ? { seconds: Number(step[1]), message: step[2] } : undefined);
    } else if (line.startsWith('INFO ')) {
      onLog?.(line.slice(5), 'info');
    } else if (line.startsWith('DENOISE ')) {
      // Blender waits for the answer, so frames are denoised one at a time, in order.
      denoising.last = denoising.last.then(async () => {
        try {
          await answerDenoiseRequest(ownFrameRequest(parseDenoiseRequest(line.slice(8)), args, rendersFrame), denoiseQualityOf(args), denoiseOneThread);
          control.write('DENOISED\n');
        } catch (error) {
          const why = `denoiser failed: ${(error as Error).message ?? String(error)}`;
          remember(why);
          onLog?.(why, 'error');
          control.write(`FAILED ${why.replace(/\s+/g, ' ')}\n`);
        }
      });
    } else if (line.startsWith('ERROR ')) {
      userError = line.slice(6).trim();
      onLog?.(userError, 'error');
    } else if (line.trim()) {
      remember(line);
      onLog?.(line, 'blender');
    }
  });
  return { outputs, userError: () => userError };
}

function runBlender(
  blenderPath: string,
  script: string,
  argsFile: string,
  args: SceneArgs,
  { onProgress, onLog, signal, threads, timeoutMs }: RunSceneOptions,
): Promise<{ outputs: string[] }> {
  return new Promise((resolve, reject) => {
    const tool = toolProcess(
      blenderPath,
      // --python-exit-code makes an uncaught Python exception a non-zero exit (default: 0).
      ['-b', '--factory-startup', '-noaudio', ...(threads ? ['-t', String(threads)] : []), '--python-exit-code', '1', '--python', script, '--', argsFile],
    );
    const child = spawn(tool.command, tool.args, { stdio: ['ignore', 'pipe', 'pipe', 'pipe'], ...tool.options });
    const { lines: tail, remember } = keepLogTail();
    let aborted = false;
    let timedOut = false;
    let killTimer: NodeJS.Timeout | undefined;

    const onAbort = () => {
      aborted = true;
      child.kill('SIGTERM');
      killTimer = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    // The signal may have fired while Blender was being found and the arguments written.
    if (signal?.aborted) onAbort();
    // A step's own limit (a model's import): past it Blender is stopped and the user told why.
    let stepTimer: NodeJS.Timeout | undefined;
    let stepOverrun: string | null = null;
    const limitStep = (step: ControlStep | undefined) => {
      clearTimeout(stepTimer);
      if (!step) return;
      stepTimer = setTimeout(() => {
        stepOverrun = step.message;
        child.kill('SIGTERM');
        killTimer = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
      }, step.seconds * 1000);
    };
    const limit = timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          child.kill('SIGTERM');
          killTimer = setTimeout(() => child.kill('SIGKILL'), KILL_GRACE_MS);
        }, timeoutMs)
      : undefined;

    const { outputs, userError } = readControl(child.stdio[3] as Duplex, args, { onProgress, onLog, onLimit: limitStep, remember });
    // Blender's own output, and whatever its importers print from a user's file: a log line, never a command.
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.trim()) return;
      remember(line);
      onLog?.(line, 'blender');
    });
    createInterface({ input: child.stderr! }).on('line', (line) => {
      if (!line.trim()) return;
      remember(line);
      onLog?.(line, 'blender');
    });

    child.on('error', (error: NodeJS.ErrnoException) => {
      signal?.removeEventListener('abort', onAbort);
      clearTimeout(limit);
      clearTimeout(stepTimer);
      reject(
        error.code === 'ENOENT' || error.code === 'EACCES'
          ? new RenderError('blender-missing', BLENDER_MISSING_MESSAGE)
          : new RenderError('render-failed', RENDER_FAILED_MESSAGE, { logTail: [...tail, String(error)] }),
      );
    });
    child.on('close', (exitCode, exitSignal) => {
      signal?.removeEventListener('abort', onAbort);
      clearTimeout(killTimer);
      clearTimeout(limit);
      clearTimeout(stepTimer);
      const details = { exitCode, signal: exitSignal, logTail: tail };
      if (aborted) return reject(new RenderError('aborted', 'The render was cancelled.', details));
      if (stepOverrun) return reject(new RenderError('invalid-input', stepOverrun, details));
      if (timedOut) return reject(new RenderError('timed-out', renderTimedOut(timeoutMs!), details));
      if (exitCode === 0 && outputs.length > 0) return resolve({ outputs });
      if (exitCode === 2 && userError()) return reject(new RenderError('invalid-input', userError()!, details));
      reject(new RenderError('render-failed', RENDER_FAILED_MESSAGE, details));
    });
  });
}
