/**
 * How close a render is to a reference: PSNR over 8-bit RGB, the picture customers get.
 * Pixels are read through ffmpeg, which every render machine has.
 */
import { execFile } from 'node:child_process';
import { demuxerFor, fileInput, PROTOCOL_WHITELIST } from './encode';

export interface RgbImage {
  width: number;
  height: number;
  rgb: Buffer;
}

export function readRgb(file: string): Promise<RgbImage> {
  return new Promise((resolve, reject) => {
    execFile(
      process.env.FFPROBE_PATH ?? 'ffprobe',
      ['-v', 'error', ...PROTOCOL_WHITELIST, '-f', demuxerFor(file), '-select_streams', 'v:0', '-show_entries', 'stream=width,height', '-of', 'csv=p=0', `file:${file}`],
      (error, stdout) => {
        if (error) return reject(error);
        const [width, height] = String(stdout).trim().split(',').map(Number);
        execFile(
          process.env.FFMPEG_PATH ?? 'ffmpeg',
          ['-v', 'error', '-nostdin', ...fileInput(file), '-f', 'rawvideo', '-pix_fmt', 'rgb24', 'pipe:1'],
          { encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 },
          (decodeError, rgb) => (decodeError ? reject(decodeError) : resolve({ width, height, rgb })),
        );
      },
    );
  });
}

/** Peak signal-to-noise ratio in dB (higher is closer); Infinity for identical images. */
export function psnr(image: RgbImage, reference: RgbImage): number {
  if (image.width !== reference.width || image.height !== reference.height) {
    throw new Error(`psnr: ${image.width}x${image.height} against ${reference.width}x${reference.height}`);
  }
  let sum = 0;
  for (let i = 0; i < image.rgb.length; i += 1) sum += (image.rgb[i] - reference.rgb[i]) ** 2;
  const mse = sum / image.rgb.length;
  return mse === 0 ? Infinity : 10 * Math.log10((255 * 255) / mse);
}
