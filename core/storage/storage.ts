import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { openToRead } from './no-follow';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import { ports, type ListedObject, type ObjectHead } from '../ports';
import type { UploadTicket } from '#shared/api-types';

/** Presigned POSTs are short-lived: the form uploads right after asking. */
const UPLOAD_TICKET_SECONDS = 15 * 60;
/**
 * How long a download link is said to last. A URL presigned on AWS works only while the role session that
 * signed it lasts (Lambda's credentials are temporary, hours at most), whatever its expiry says, so no link
 * is promised for days: the pages ask for fresh links on each view, and the outcome e-mail links to the API,
 * which presigns at the click (core/jobs/outcome-mail.ts).
 */
export const DOWNLOAD_URL_SECONDS = 3600;

/** Every input lives under its owner's prefix; the server picks the whole key. */
export const inputPrefix = (userId: string) => `uploads/${userId}/`;

/**
 * Whether a key is one presignUpload could have made for this user: exactly
 * uploads/<user>/<uuid>/<file name>, parsed, never compared as a prefix (a `..`
 * segment would pass a prefix and reach another user's upload where keys are
 * paths, as on the local stack's storage).
 */
export function isOwnInputKey(userId: string, key: string): boolean {
  const parts = key.split('/');
  if (parts.length !== 4) return false;
  const [top, owner, id, fileName] = parts;
  return top === 'uploads' && owner === userId && /^[0-9a-f-]{36}$/.test(id) && fileName !== '' && fileName !== '.' && fileName !== '..';
}
export const outputPrefix = (userId: string, jobId: string) => `users/${userId}/jobs/${jobId}/`;

/**
 * A presigned POST for one input file. The policy pins the exact key (under the
 * user's prefix), the content type and the size range, so storage itself refuses
 * another key, another type or a larger file.
 */
export async function presignUpload(userId: string, fileName: string, contentType: string, maxBytes: number): Promise<UploadTicket> {
  const key = `${inputPrefix(userId)}${randomUUID()}/${fileName}`;
  const { url, fields } = await ports().uploads().presignPost(key, { contentType, maxBytes, expiresInSeconds: UPLOAD_TICKET_SECONDS });
  return { url, fields, key, maxBytes, fileName };
}

export async function headInput(key: string): Promise<ObjectHead | undefined> {
  return ports().uploads().head(key);
}

/**
 * Gives an upload another day: the uploads bucket's lifecycle counts a day from an object's creation, and a copy onto
 * itself (the same bytes and type, so the same ETag) is a new creation. A free test uses it (core/uploads/upload-retention.ts).
 */
export async function renewInput(key: string, contentType: string): Promise<void> {
  // Storage refuses a copy onto itself that changes nothing; the new metadata is that change.
  await ports().uploads().copyOntoItself(key, contentType, { 'last-used': new Date().toISOString() });
}

export async function deleteInput(key: string): Promise<void> {
  await ports().uploads().delete(key);
}

export interface StoredObject extends ListedObject {
  name: string;
}

export async function listOutputs(userId: string, jobId: string): Promise<StoredObject[]> {
  const prefix = outputPrefix(userId, jobId);
  const { objects } = await ports().outputs().listPage(prefix);
  return objects.filter((o) => !o.key.slice(prefix.length).includes('/')).map((o) => ({ key: o.key, name: o.key.slice(prefix.length), size: o.size }));
}

/** A time-limited download link that saves under the file's own name. */
export async function presignDownload(key: string, fileName: string, contentType: string): Promise<string> {
  return ports().outputs().presignGet(key, { expiresInSeconds: DOWNLOAD_URL_SECONDS, contentType, disposition: `attachment; filename="${fileName.replace(/"/g, '')}"` });
}

/** The worker's copy of a job's input. */
export async function downloadInput(key: string, file: string): Promise<void> {
  await pipeline(await ports().uploads().read(key), createWriteStream(file));
}

/** Stores one output file under the job's prefix (`name` may hold a sub-folder, e.g. frames/). */
export async function uploadOutput(userId: string, jobId: string, name: string, file: string, contentType: string): Promise<{ key: string; size: number }> {
  const key = `${outputPrefix(userId, jobId)}${name}`;
  // A render tool wrote it, in a folder it owns: read only what the path really names.
  const handle = await openToRead(file);
  const body = await handle.readFile().finally(() => handle.close());
  await ports().outputs().put(key, body, contentType);
  return { key, size: body.length };
}

/** Fetches an output back (a resumed animation needs the frames an earlier worker stored). */
export async function downloadOutput(userId: string, jobId: string, name: string, file: string): Promise<void> {
  await pipeline(await ports().outputs().read(`${outputPrefix(userId, jobId)}${name}`), createWriteStream(file));
}

/** The stored upload is not audio that can be measured. */
export class MediaUnreadableError extends Error {}

/** How long the prober's link to an upload lives: past the probe function's cold start, download and run. */
const PROBE_URL_SECONDS = 120;

/**
 * The duration of an uploaded audio file, measured on the stored object (never the
 * client's claim). The prober gets a presigned GET for this one key (the caller checked
 * it is the user's own), so it reads that object and nothing else.
 */
export async function measureInputDuration(key: string): Promise<number> {
  const measured = await ports().mediaDuration({ key, url: await presignInputRead(key) });
  if ('unreadable' in measured) throw new MediaUnreadableError(measured.unreadable);
  return measured.seconds;
}

/** One output as a stream (the encoder reads frames this way, one at a time). */
export async function readOutput(userId: string, jobId: string, name: string): Promise<Readable> {
  return ports().outputs().read(`${outputPrefix(userId, jobId)}${name}`);
}

/** One stored output by its whole key (a listed output, read into a batch's ZIP), as a stream. */
export async function readOutputAt(key: string): Promise<Readable> {
  return ports().outputs().read(key);
}

/** Stores a large output (a video) as a multipart upload, streamed from the file, parts sent side by side. */
export async function uploadLargeOutput(userId: string, jobId: string, name: string, file: string, contentType: string): Promise<{ key: string; size: number }> {
  const key = `${outputPrefix(userId, jobId)}${name}`;
  const handle = await openToRead(file);
  const { size } = await handle.stat();
  await ports().outputs().upload(key, handle.createReadStream(), contentType, 4);
  return { key, size };
}

/** The stored outputs under a folder of the job's prefix (e.g. 'frames/'), a listing page at a time. */
async function* outputPagesUnder(userId: string, jobId: string, folder: string): AsyncGenerator<ListedObject[]> {
  let next: string | undefined;
  do {
    const page = await ports().outputs().listPage(`${outputPrefix(userId, jobId)}${folder}`, next);
    yield page.objects;
    next = page.next;
  } while (next);
}

/** Deletes every output under a folder of the job's prefix (e.g. 'frames/'); returns how many. */
export async function deleteOutputsUnder(userId: string, jobId: string, folder: string): Promise<number> {
  let deleted = 0;
  for await (const page of outputPagesUnder(userId, jobId, folder)) {
    if (page.length > 0) {
      await ports().outputs().deleteMany(page.map((o) => o.key));
      deleted += page.length;
    }
  }
  return deleted;
}

/** Stores an output made as a stream (a ZIP built while it uploads) as a multipart upload; returns its size. */
export async function uploadOutputStream(userId: string, jobId: string, name: string, body: Readable, contentType: string): Promise<{ key: string; size: number }> {
  const key = `${outputPrefix(userId, jobId)}${name}`;
  let size = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      done(null, chunk);
    },
  });
  body.on('error', (error) => counted.destroy(error));
  await ports().outputs().upload(key, body.pipe(counted), contentType, 4);
  return { key, size };
}

/** Stores a ZIP made as a stream (a batch's outputs) under its whole key as a multipart upload, two parts side by side. */
export async function uploadOutputArchive(key: string, body: Readable): Promise<void> {
  await ports().outputs().upload(key, body, 'application/zip', 2);
}

/** Whether an output exists (a frame's preview may be missing when its upload failed). */
export async function outputExists(key: string): Promise<boolean> {
  return (await ports().outputs().head(key)) !== undefined;
}

/** A time-limited link to show an output inline (an <img> of a frame's preview, the picture in an e-mail). */
export async function presignInline(key: string, contentType: string, expiresIn = DOWNLOAD_URL_SECONDS): Promise<string> {
  return ports().outputs().presignGet(key, { expiresInSeconds: expiresIn, contentType });
}

/** Where a live preview is kept, by the hash of what it shows (a lifecycle rule removes it after a day). */
const previewKey = (hash: string) => `previews/${hash}.jpg`;

/**
 * A presigned GET of one upload for whoever renders it (the caller checked it is the user's own): that object and nothing else.
 * Pinned to an ETag, If-Match is one of the signed headers, so the link reads that content only (a form posted again in
 * between is refused by storage, and by the reader, which compares the answer's ETag).
 */
export function presignInputRead(key: string, pin?: { etag: string; seconds: number }): Promise<string> {
  return ports().uploads().presignGet(key, { expiresInSeconds: pin?.seconds ?? PROBE_URL_SECONDS, ...(pin ? { ifMatch: pin.etag } : {}) });
}

/** The stored upload is no longer the content an ETag named (its upload form was posted again). */
export class InputChangedError extends Error {}

/**
 * A copy of one upload's content as its ETag names it: storage refuses another (If-Match), and the answer's own ETag is
 * compared too, for a store that ignores the condition (the local stack's).
 */
export async function downloadInputAt(key: string, etag: string, file: string, abortSignal?: AbortSignal): Promise<void> {
  const answer = await ports().uploads().readIfMatch(key, etag, abortSignal);
  if (!answer) throw new InputChangedError(`${key} is no longer ${etag}`);
  if (answer.etag !== etag) {
    answer.body.destroy();
    throw new InputChangedError(`${key} is ${answer.etag}, not ${etag}`);
  }
  await pipeline(answer.body, createWriteStream(file));
}

/** A kept preview's JPEG, or undefined. */
export async function readKeptPreview(hash: string): Promise<Buffer | undefined> {
  return ports().outputs().readBytes(previewKey(hash));
}

export async function keepPreview(hash: string, jpeg: Buffer): Promise<void> {
  await ports().outputs().put(previewKey(hash), jpeg, 'image/jpeg');
}
