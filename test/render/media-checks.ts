/** ffprobe/ffmpeg checks the format tests and the browser journeys share. */
import { execFileSync } from 'node:child_process';

export interface ProbedStream {
  codec_name: string;
  pix_fmt?: string;
  width?: number;
  height?: number;
  nb_read_frames?: string;
  tags?: Record<string, string>;
}

/** The first video stream of a file, its frames counted by decoding them. */
export function ffprobeStream(file: string): ProbedStream {
  const out = execFileSync('ffprobe', [
    '-v', 'error',
    '-select_streams', 'v:0', '-count_frames',
    '-show_entries', 'stream=codec_name,pix_fmt,width,height,nb_read_frames:stream_tags',
    '-of', 'json', file,
  ]);
  return (JSON.parse(String(out)) as { streams: ProbedStream[] }).streams[0];
}

/** How many pixels of the first frame are fully transparent and fully opaque. */
export function alphaHistogram(file: string, options: { decoder?: string } = {}): { transparent: number; opaque: number; pixels: number } {
  const raw = execFileSync('ffmpeg', [
    '-v', 'error',
    ...(options.decoder ? ['-c:v', options.decoder] : []),
    '-i', file, '-frames:v', '1', '-vf', 'alphaextract', '-f', 'rawvideo', '-pix_fmt', 'gray', '-',
  ], { maxBuffer: 256 * 1024 * 1024 });
  let transparent = 0;
  let opaque = 0;
  for (const value of raw) {
    if (value <= 8) transparent += 1;
    else if (value >= 247) opaque += 1;
  }
  return { transparent, opaque, pixels: raw.length };
}
