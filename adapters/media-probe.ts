import { execFile } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { z } from 'zod';
import { ACCEPTED_UPLOADS } from '#shared/catalogue';
import { functionInvoker, type FunctionSettings } from './function-invoke';

const run = promisify(execFile);

/** The demuxer for each audio extension an upload may have: the file is never guessed at. */
const FORMATS: Readonly<Record<string, string>> = { '.mp3': 'mp3', '.wav': 'wav' };

/** An upload's length, or why it could not be read as audio (the core's MediaDuration). */
export type ProbedDuration = { seconds: number } | { unreadable: string };

/**
 * One upload to measure: its key (the demuxer follows its extension) and a presigned GET
 * for that key alone, made by the API after it checked the key is the caller's. Whoever
 * probes needs no storage rights of its own and can read nothing else.
 */
export interface UploadToProbe {
  key: string;
  url: string;
  /** The content the reader may take (a live preview's upload, as inspected): sent as If-Match, and the answer's ETag compared. */
  etag?: string;
}

/**
 * Deadlines of a probe: the download (an upload is at most 50 MB, in the same Region: about a
 * second) and ffprobe's own run (it reads the headers). With Lambda's 10-s Init limit they fit
 * the probe function's 15 s and the API's wait (PROBE_INVOKE_MS).
 */
export const PROBE_DOWNLOAD_MS = 7_000;
export const PROBE_RUN_MS = 7_000;

/**
 * The duration in seconds of a local audio file, as ffprobe reads it. Only the
 * file protocol is allowed and the demuxer is chosen by the extension, so a crafted
 * file cannot make ffprobe open a URL or another file.
 */
export async function probeMediaDuration(file: string, ffprobePath: string): Promise<ProbedDuration> {
  const format = FORMATS[extname(file).toLowerCase()];
  if (!format) return { unreadable: `No demuxer for ${extname(file) || 'a file without extension'}` };
  let stdout: string;
  try {
    ({ stdout } = await run(
      ffprobePath,
      ['-v', 'error', '-protocol_whitelist', 'file', '-f', format, '-show_entries', 'format=duration', '-of', 'json', `file:${file}`],
      // Only what ffprobe needs: no credentials of the process that runs it in its environment.
      { timeout: PROBE_RUN_MS, maxBuffer: 64 * 1024, env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } },
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

/** The URL must name the key it is said to be for: a probe reads that one object, nothing a request slips in. */
function checkedUrl({ key, url }: UploadToProbe): URL {
  const parsed = new URL(url);
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw new Error(`A probe reads storage over HTTP(S), not ${parsed.protocol}`);
  const path = decodeURIComponent(parsed.pathname);
  if (!path.endsWith(`/${key}`)) throw new Error('The probe URL does not name the upload key');
  return parsed;
}

/**
 * Downloads one upload through its presigned URL into `file`: no redirect followed, at most
 * `maxBytes`, within `deadlineMs`, and with `etag` that content only. Whoever reads it needs no
 * storage rights of its own.
 */
export async function fetchUpload(upload: UploadToProbe, file: string, maxBytes: number, deadlineMs: number, what = 'an upload of its kind'): Promise<void> {
  const url = checkedUrl(upload);
  const response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(deadlineMs), ...(upload.etag ? { headers: { 'if-match': upload.etag } } : {}) });
  if (!response.ok || !response.body) throw new Error(`Reading the upload answered ${response.status}`);
  // A store that ignores If-Match (the local stack's) still names the content it sent.
  if (upload.etag && response.headers.get('etag') !== upload.etag) {
    await response.body.cancel();
    throw new Error(`The upload is no longer the content inspected (${upload.etag})`);
  }
  let bytes = 0;
  const capped = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length;
      done(bytes > maxBytes ? new Error(`The upload is larger than ${what} may be (${maxBytes} bytes)`) : null, chunk);
    },
  });
  await pipeline(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), capped, createWriteStream(file));
}

/**
 * Downloads one upload (at most an audio upload's size, within a deadline) into a folder of
 * its own, measures it and removes it. Both homes run this: the local stack in its own
 * process, AWS in the probe function.
 */
export async function probeUpload(upload: UploadToProbe, ffprobePath: string): Promise<ProbedDuration> {
  const extension = extname(upload.key).toLowerCase();
  if (!FORMATS[extension]) return { unreadable: `No demuxer for ${extension || 'a file without extension'}` };
  checkedUrl(upload);
  const dir = await mkdtemp(join(tmpdir(), 'probe-'));
  try {
    const file = join(dir, `input${extension}`);
    await fetchUpload(upload, file, ACCEPTED_UPLOADS.audio.maxBytes, PROBE_DOWNLOAD_MS, 'an audio upload');
    return await probeMediaDuration(file, ffprobePath);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const probeAnswer = z.union([z.strictObject({ seconds: z.number().positive() }), z.strictObject({ unreadable: z.string() })]);

/**
 * The wait for the probe function's answer: its cold start (Lambda caps Init at 10 s) and its
 * 15-s limit (the download and ffprobe, each with its deadline above), inside API Gateway's 29 s.
 */
export const PROBE_INVOKE_MS = 25_000;

/**
 * On AWS: measures an upload in the probe function (the render image, which has ffmpeg,
 * as a small function with no rights of its own; render/entries/probe.ts serves it), by one
 * synchronous Invoke carrying the key and its presigned URL (adapters/function-invoke.ts).
 */
export function functionMediaProbe(settings: FunctionSettings): (upload: UploadToProbe) => Promise<ProbedDuration> {
  const probe = functionInvoker(settings, PROBE_INVOKE_MS);
  return async (upload) => probeAnswer.parse(await probe.call({ step: 'probe', ...upload }));
}
