/**
 * ffmpeg / ffprobe helpers for the render worker: frames -> MP4, thumbnails, and media
 * probing (duration and size of uploads and outputs).
 *
 * FFMPEG_PATH / FFPROBE_PATH override the binaries found on PATH.
 */
import { execFile, spawn } from 'node:child_process';
import type { Readable } from 'node:stream';
import { readdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { toolProcess } from './tool-environment';

export const FFMPEG_MISSING_MESSAGE =
  'ffmpeg is not installed on this machine: install it with `apt-get install -y ffmpeg`, or set FFMPEG_PATH and FFPROBE_PATH.';
export const UNREADABLE_MEDIA_MESSAGE = 'The file is not a readable image, audio or video file.';

export type MediaErrorKind = 'ffmpeg-missing' | 'unreadable' | 'missing-frames' | 'failed';

export class MediaError extends Error {
  constructor(
    readonly kind: MediaErrorKind,
    message: string,
    readonly details?: string,
  ) {
    super(message);
    this.name = 'MediaError';
  }
}

export interface MediaInfo {
  /** Seconds; null for a still image. */
  duration: number | null;
  /** Size of the first real video stream (cover art in an MP3 does not count). */
  width: number | null;
  height: number | null;
  videoCodec: string | null;
  audioCodec: string | null;
}

export interface EncodeOptions {
  /** x264 constant rate factor: 18 is visually lossless, 28 is small for web previews. */
  crf?: number;
  /** Scale to this width (height follows, kept even). Default: the frames' own size. */
  width?: number;
  /**
   * Light spatio-temporal denoise (hqdn3d): renders from this Blender have no
   * OpenImageDenoise, and noise also costs bitrate.
   */
  denoise?: boolean;
}

const FRAME_FILE = /^frame_(\d+)\.png$/;

/**
 * ffmpeg may open local files and pipes only: a crafted upload (an HLS or concat
 * playlist named like audio) cannot make it fetch a URL or read another file.
 */
export const PROTOCOL_WHITELIST = ['-protocol_whitelist', 'file,pipe'];

/**
 * The demuxer for each kind of file the worker hands to ffmpeg, chosen by its
 * extension and never by probing the content, which is how a playlist would get in.
 */
const DEMUXERS: Readonly<Record<string, string>> = {
  '.png': 'png_pipe',
  '.jpg': 'jpeg_pipe',
  '.jpeg': 'jpeg_pipe',
  '.mp4': 'mov',
  '.mov': 'mov',
  '.mp3': 'mp3',
  '.wav': 'wav',
};

export function demuxerFor(file: string): string {
  const format = DEMUXERS[path.extname(file).toLowerCase()];
  if (!format) throw new MediaError('unreadable', `${UNREADABLE_MEDIA_MESSAGE} (no demuxer for ${path.extname(file) || 'a file without extension'})`);
  return format;
}

/** The arguments that open one local file as an ffmpeg input: whitelist, explicit demuxer, file: URL. */
export function fileInput(file: string): string[] {
  return [...PROTOCOL_WHITELIST, '-f', demuxerFor(file), '-i', `file:${path.resolve(file)}`];
}

/**
 * Encodes <framesDir>/frame_NNNN.png (as the scene scripts write them) into an H.264 MP4
 * that every browser plays: yuv420p, even dimensions, moov atom first (+faststart) so it
 * starts playing before it has fully downloaded. With audioFile (audio scenes) the track
 * is muxed as AAC, starting with the first frame.
 */
export async function encodeMp4(
  framesDir: string,
  outFile: string,
  fps = 30,
  audioFile?: string,
  options: EncodeOptions = {},
): Promise<void> {
  const frames = await listFrames(framesDir);
  const first = frames[0];
  const missing = frames.length > 0 ? missingFrames(frames) : [];
  if (frames.length === 0) throw new MediaError('missing-frames', `No frames to encode in ${framesDir}.`);
  if (missing.length > 0) {
    throw new MediaError('missing-frames', `Frames missing before encoding: ${missing.slice(0, 20).join(', ')}.`);
  }
  // The image2 demuxer reads from start_number up to the first gap, and there is none.
  const input = [...PROTOCOL_WHITELIST, '-f', 'image2', '-framerate', String(fps), '-start_number', String(first), '-i', `file:${path.resolve(framesDir, 'frame_%04d.png')}`];
  await runFfmpeg([...input, ...mp4OutputArgs(outFile, fps, audioFile, options)]);
}

/**
 * H.264 as every encoder here writes it. A closed GOP and one time scale for the track
 * and the file (a multiple of every frame rate we render at) make each chunk's segment a
 * self-contained piece whose duration is exact, so segments join without re-encoding.
 */
function h264Args(fps: number, options: EncodeOptions): string[] {
  const filters = [
    options.width ? `scale=${options.width}:-2` : 'scale=trunc(iw/2)*2:trunc(ih/2)*2',
    ...(options.denoise ? ['hqdn3d=3:2:6:4'] : []),
    'format=yuv420p',
  ];
  return [
    '-vf', filters.join(','),
    '-c:v', 'libx264', '-preset', 'medium', '-crf', String(options.crf ?? 18), '-x264-params', 'open-gop=0',
    '-r', String(fps),
    '-video_track_timescale', String(TIMESCALE), '-movie_timescale', String(TIMESCALE),
  ];
}

/** 512 ticks a frame at 30 fps, 640 at 24, 256 at 60. */
const TIMESCALE = 15_360;

/** What both encoders ask of ffmpeg after the frames' input: the soundtrack, the filters, H.264 and the file. */
function mp4OutputArgs(outFile: string, fps: number, audioFile: string | undefined, options: EncodeOptions): string[] {
  return [
    ...(audioFile ? fileInput(audioFile) : []),
    ...h264Args(fps, options),
    ...(audioFile ? ['-map', '0:v:0', '-map', '1:a:0', ...AAC_ARGS] : []),
    '-movflags', '+faststart',
    `file:${path.resolve(outFile)}`,
  ];
}

const AAC_ARGS = ['-c:a', 'aac', '-b:a', '192k', '-shortest'];

/**
 * Encodes frames first..last of <framesDir>/frame_NNNN.png into one video segment (no
 * audio): what a chunk stores right after rendering its frames, so the finishing step
 * only joins segments (concatSegments) instead of encoding the whole animation.
 */
export async function encodeSegment(framesDir: string, first: number, last: number, outFile: string, fps = 30): Promise<void> {
  const frames = await listFrames(framesDir);
  const wanted = Array.from({ length: last - first + 1 }, (_, i) => first + i);
  const missing = wanted.filter((frame) => !frames.includes(frame));
  if (missing.length > 0) throw new MediaError('missing-frames', `Frames missing before encoding: ${missing.slice(0, 20).join(', ')}.`);
  const input = [...PROTOCOL_WHITELIST, '-f', 'image2', '-framerate', String(fps), '-start_number', String(first), '-i', `file:${path.resolve(framesDir, 'frame_%04d.png')}`];
  await runFfmpeg([...input, '-frames:v', String(wanted.length), ...h264Args(fps, {}), '-an', `file:${path.resolve(outFile)}`]);
}

/**
 * Joins segments (in order) into the final MP4 without re-encoding (ffmpeg's concat
 * demuxer, stream copy) and muxes the soundtrack once, over the whole video.
 */
export async function concatSegments(segments: readonly string[], outFile: string, audioFile?: string): Promise<void> {
  if (segments.length === 0) throw new MediaError('missing-frames', 'No segments to join.');
  const list = `${outFile}.segments.txt`;
  // The list names only our own files; the concat demuxer reads them with the file protocol alone.
  // Created afresh ('wx': never through a link the tools' user may have put in a folder it owns).
  await writeFile(list, segments.map((file) => `file '${path.resolve(file).replace(/'/g, "'\\''")}'\n`).join(''), { flag: 'wx' });
  try {
    await runFfmpeg([
      '-protocol_whitelist', 'file', '-f', 'concat', '-safe', '0', '-i', `file:${path.resolve(list)}`,
      ...(audioFile ? fileInput(audioFile) : []),
      '-map', '0:v:0', ...(audioFile ? ['-map', '1:a:0', ...AAC_ARGS] : []),
      '-c:v', 'copy', '-movflags', '+faststart',
      `file:${path.resolve(outFile)}`,
    ]);
  } finally {
    await rm(list, { force: true });
  }
}

/**
 * Encodes PNG frames read one at a time from `frames` (in order) into the same MP4 as
 * encodeMp4, so a long animation never has to sit on one disk: ffmpeg reads them from
 * a pipe. Only the video file is written locally.
 */
export async function encodeMp4FromStreams(
  frames: AsyncIterable<Readable>,
  outFile: string,
  fps = 30,
  audioFile?: string,
  options: EncodeOptions = {},
): Promise<number> {
  return encodeFramesFromStreams(frames, fps, mp4OutputArgs(outFile, fps, audioFile, options));
}

/**
 * Pipes PNG frames read one at a time from `frames` (in order) into ffmpeg, which
 * writes what `outputArgs` ask for (every delivery format goes through here).
 * Returns how many frames went in.
 */
export async function encodeFramesFromStreams(frames: AsyncIterable<Readable>, fps: number, outputArgs: string[]): Promise<number> {
  const args = ['-y', '-v', 'error', ...PROTOCOL_WHITELIST, '-f', 'image2pipe', '-framerate', String(fps), '-c:v', 'png', '-i', 'pipe:0', ...outputArgs];
  const tool = toolProcess(ffmpegPath(), args);
  const child = spawn(tool.command, tool.args, { stdio: ['pipe', 'ignore', 'pipe'], ...tool.options });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += String(chunk)).length > 20_000 && (stderr = stderr.slice(-10_000)));
  const exited = new Promise<void>((resolve, reject) => {
    child.on('error', (error: NodeJS.ErrnoException) => reject(error.code === 'ENOENT' ? new MediaError('ffmpeg-missing', FFMPEG_MISSING_MESSAGE) : error));
    child.on('close', (code) => (code === 0 ? resolve() : reject(new MediaError('failed', `ffmpeg failed: ${stderr.trim() || `exit code ${code}`}`, stderr))));
  });
  // ffmpeg exiting early closes the pipe: the write error is reported through its exit instead.
  child.stdin.on('error', () => {});
  let count = 0;
  try {
    for await (const frame of frames) {
      for await (const chunk of frame) {
        if (!child.stdin.write(chunk)) await new Promise((resolve) => child.stdin.once('drain', resolve));
      }
      count += 1;
    }
  } catch (error) {
    child.kill('SIGKILL');
    await exited.catch(() => {});
    throw error;
  }
  child.stdin.end();
  await exited;
  if (count === 0) throw new MediaError('missing-frames', 'No frames to encode.');
  return count;
}

/** A JPEG of an image, or of the frame a third into a video, scaled down to width. */
export async function makeThumbnail(imageOrVideo: string, outFile: string, width = 640): Promise<void> {
  const info = await probeMedia(imageOrVideo);
  const seek = info.duration && info.duration > 0.5 ? ['-ss', (info.duration / 3).toFixed(2)] : [];
  await runFfmpeg([
    ...seek,
    ...fileInput(imageOrVideo),
    '-frames:v', '1',
    '-vf', `scale='min(${width},iw)':-2`,
    '-q:v', '3',
    '-update', '1',
    `file:${path.resolve(outFile)}`,
  ]);
}

/** Duration, size and codecs of a media file; MediaError 'unreadable' when it is not one. */
export async function probeMedia(file: string): Promise<MediaInfo> {
  let stdout: string;
  try {
    const input = [...PROTOCOL_WHITELIST, '-f', demuxerFor(file), `file:${path.resolve(file)}`];
    stdout = await runTool(ffprobePath(), ['-v', 'error', ...input, '-print_format', 'json', '-show_format', '-show_streams']);
  } catch (error) {
    if (error instanceof MediaError && error.kind === 'failed') {
      throw new MediaError('unreadable', UNREADABLE_MEDIA_MESSAGE, error.details);
    }
    throw error;
  }
  const probe = JSON.parse(stdout) as FfprobeOutput;
  const streams = probe.streams ?? [];
  const video = streams.find((s) => s.codec_type === 'video' && !s.disposition?.attached_pic);
  const audio = streams.find((s) => s.codec_type === 'audio');
  if (!video && !audio) throw new MediaError('unreadable', UNREADABLE_MEDIA_MESSAGE);
  const duration = Number(probe.format?.duration ?? audio?.duration ?? video?.duration);
  // Still images come through the image demuxers with no duration or a nominal one-frame one.
  const isStillImage = /(^|,)image2(,|$)|_pipe(,|$)/.test(probe.format?.format_name ?? '');
  return {
    duration: !isStillImage && Number.isFinite(duration) && duration > 0 ? duration : null,
    width: video?.width ?? null,
    height: video?.height ?? null,
    videoCodec: video?.codec_name ?? null,
    audioCodec: audio?.codec_name ?? null,
  };
}

interface FfprobeStream {
  codec_type?: string;
  codec_name?: string;
  width?: number;
  height?: number;
  duration?: string;
  disposition?: { attached_pic?: number };
}

interface FfprobeOutput {
  streams?: FfprobeStream[];
  format?: { duration?: string; format_name?: string };
}

async function listFrames(framesDir: string): Promise<number[]> {
  let names: string[];
  try {
    names = await readdir(framesDir);
  } catch {
    return [];
  }
  return names
    .map((name) => FRAME_FILE.exec(name))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => Number(match[1]))
    .sort((a, b) => a - b);
}

function missingFrames(sorted: number[]): number[] {
  const present = new Set(sorted);
  const missing: number[] = [];
  for (let frame = sorted[0]; frame <= sorted[sorted.length - 1]; frame += 1) {
    if (!present.has(frame)) missing.push(frame);
  }
  return missing;
}

/** Runs ffmpeg quietly, overwriting outputs; MediaError on failure. */
export async function runFfmpeg(args: string[]): Promise<void> {
  await runTool(ffmpegPath(), ['-y', '-v', 'error', '-nostdin', ...args]);
}

function ffmpegPath(): string {
  return process.env.FFMPEG_PATH?.trim() || 'ffmpeg';
}

function ffprobePath(): string {
  return process.env.FFPROBE_PATH?.trim() || 'ffprobe';
}

function runTool(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const tool = toolProcess(command, args);
    execFile(tool.command, tool.args, { maxBuffer: 64 * 1024 * 1024, ...tool.options }, (error, stdout, stderr) => {
      if (!error) return resolve(stdout);
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        return reject(new MediaError('ffmpeg-missing', FFMPEG_MISSING_MESSAGE));
      }
      reject(new MediaError('failed', `${path.basename(command)} failed: ${String(stderr).trim() || error.message}`, String(stderr)));
    });
  });
}
