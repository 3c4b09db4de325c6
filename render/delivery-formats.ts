/**
 * The delivery formats other than the MP4 every animation gets: one ffmpeg pass each
 * over the stored frames (WebM, WebM with alpha, GIF), a ZIP of the frames streamed
 * as they are read, and the still formats. Which format a job wants, and which scenes
 * may ask for transparency, is decided in shared/output-formats.ts.
 */
import type { Readable } from 'node:stream';
import { PassThrough } from 'node:stream';
import { ZipFile } from 'yazl';
import { GIF_FPS, GIF_MAX_SECONDS, GIF_MAX_WIDTH, type OutputFormat } from '#shared/output-formats';
import { encodeFramesFromStreams, fileInput, runFfmpeg } from './encode';

/** Frames of the animation in order, opened one at a time as the encoder asks for them. */
export type FrameSource = (frame: number) => Promise<Readable>;

async function* framesUpTo(source: FrameSource, count: number): AsyncIterable<Readable> {
  for (let frame = 1; frame <= count; frame += 1) yield await source(frame);
}

/** How many frames of an animation the GIF holds: the first GIF_MAX_SECONDS of it. */
export const gifSourceFrames = (totalFrames: number, fps: number): number => Math.min(totalFrames, GIF_MAX_SECONDS * fps);

/** Frames the GIF ends up with: the source frames resampled from fps to GIF_FPS. */
export const gifFrameCount = (totalFrames: number, fps: number): number => Math.round((gifSourceFrames(totalFrames, fps) * GIF_FPS) / fps);

/**
 * Encodes a video format from the frames: WebM (VP9, constant quality), WebM with its
 * alpha channel (yuva420p; VP9 carries it as a side stream players composite), or an
 * animated GIF with a palette made for these frames. Returns the frames read.
 */
export async function encodeVideoFormat(
  format: Extract<OutputFormat, 'webm' | 'webm-alpha' | 'gif'>,
  source: FrameSource,
  totalFrames: number,
  fps: number,
  outFile: string,
  audioFile?: string,
): Promise<number> {
  if (format === 'gif') {
    const filters = `fps=${GIF_FPS},scale='min(${GIF_MAX_WIDTH},iw)':-2:flags=lanczos,split[a][b];[a]palettegen=stats_mode=diff[p];[b][p]paletteuse=dither=bayer:bayer_scale=4`;
    return encodeFramesFromStreams(framesUpTo(source, gifSourceFrames(totalFrames, fps)), fps, ['-filter_complex', filters, '-loop', '0', '-f', 'gif', outFile]);
  }
  const alpha = format === 'webm-alpha';
  const args = [
    ...(audioFile ? fileInput(audioFile) : []),
    '-vf', alpha ? 'scale=trunc(iw/2)*2:trunc(ih/2)*2,format=yuva420p' : 'scale=trunc(iw/2)*2:trunc(ih/2)*2,format=yuv420p',
    '-c:v', 'libvpx-vp9', '-b:v', '0', '-crf', '31', '-row-mt', '1', '-deadline', 'good', '-cpu-used', '4',
    // The alt-ref frames of VP9 do not carry alpha: they stay off for a transparent video.
    ...(alpha ? ['-auto-alt-ref', '0'] : []),
    '-r', String(fps),
    ...(audioFile ? ['-map', '0:v:0', '-map', '1:a:0', '-c:a', 'libopus', '-b:a', '160k', '-shortest'] : []),
    '-f', 'webm',
    outFile,
  ];
  return encodeFramesFromStreams(framesUpTo(source, totalFrames), fps, args);
}

/**
 * A ZIP of every frame, streamed: each frame is opened only when the archive reaches it,
 * and stored uncompressed (PNG is compressed already, deflating it again only costs
 * CPU). The archive's bytes come out of the returned stream as they are made.
 */
export function zipFrames(source: FrameSource, totalFrames: number, nameOf: (frame: number) => string): Readable {
  const zip = new ZipFile();
  const output = new PassThrough();
  for (let frame = 1; frame <= totalFrames; frame += 1) {
    zip.addReadStreamLazy(nameOf(frame), { compress: false }, (callback) => {
      source(frame).then(
        (stream) => {
          // A frame that breaks off mid-read fails the whole archive, never a truncated entry.
          stream.on('error', (error) => output.destroy(error));
          callback(null, stream);
        },
        (error: unknown) => callback(error, undefined as unknown as Readable),
      );
    });
  }
  zip.end();
  zip.on('error', (error: Error) => output.destroy(error));
  return (zip.outputStream as Readable).pipe(output);
}

/** The JPEG delivery of a still (the PNG formats are the rendered file itself). */
export async function stillToJpeg(png: string, outFile: string): Promise<void> {
  await runFfmpeg([...fileInput(png), '-frames:v', '1', '-q:v', '2', '-update', '1', outFile]);
}
