import { execFile } from 'node:child_process';
import { extname } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The demuxer for each audio extension an upload may have: the file is never guessed at. */
const FORMATS: Readonly<Record<string, string>> = { '.mp3': 'mp3', '.wav': 'wav' };

/**
 * The duration in seconds of a local audio file, as ffprobe reads it. Only the
 * file protocol is allowed and the demuxer is chosen by the extension, so a crafted
 * file cannot make ffprobe open a URL or another file.
 */
export async function probeMediaDuration(file: string, ffprobePath: string): Promise<{ seconds: number } | { unreadable: string }> {
  const format = FORMATS[extname(file).toLowerCase()];
  if (!format) return { unreadable: `No demuxer for ${extname(file) || 'a file without extension'}` };
  let stdout: string;
  try {
    ({ stdout } = await run(
      ffprobePath,
      ['-v', 'error', '-protocol_whitelist', 'file', '-f', format, '-show_entries', 'format=duration', '-of', 'json', `file:${file}`],
      { timeout: 20_000, maxBuffer: 64 * 1024 },
    ));
  } catch (error) {
    const e = error as NodeJS.ErrnoException & { stderr?: string };
    if (e.code === 'ENOENT') throw new Error(`ffprobe was not found at ${ffprobePath}: it is needed to measure uploaded media`, { cause: error });
    return { unreadable: e.stderr?.trim() || e.message };
  }
  const duration = Number((JSON.parse(stdout) as { format?: { duration?: string } }).format?.duration);
  if (!Number.isFinite(duration) || duration <= 0) return { unreadable: 'No duration in the file' };
  return { seconds: duration };
}
