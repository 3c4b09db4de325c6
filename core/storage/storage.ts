import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { openToRead } from './no-follow';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import { CopyObjectCommand, DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { ports, s3Client } from '../ports';
import { getConfig } from '../config';
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
  const { url, fields } = await createPresignedPost(s3Client(), {
    Bucket: getConfig().UPLOADS_BUCKET,
    Key: key,
    Conditions: [
      ['content-length-range', 1, maxBytes],
      ['eq', '$Content-Type', contentType],
    ],
    Fields: { 'Content-Type': contentType },
    Expires: UPLOAD_TICKET_SECONDS,
  });
  return { url, fields, key, maxBytes, fileName };
}

export async function headInput(key: string): Promise<{ size: number; contentType: string; etag: string } | undefined> {
  try {
    const head = await s3Client().send(new HeadObjectCommand({ Bucket: getConfig().UPLOADS_BUCKET, Key: key }));
    return { size: head.ContentLength ?? 0, contentType: head.ContentType ?? '', etag: head.ETag ?? '' };
  } catch (error) {
    if ((error as { name?: string }).name === 'NotFound' || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return undefined;
    throw error;
  }
}

/**
 * Gives an upload another day: the uploads bucket's lifecycle counts a day from an object's creation, and a copy onto
 * itself (the same bytes and type, so the same ETag) is a new creation. A free test uses it (core/uploads/upload-retention.ts).
 */
export async function renewInput(key: string, contentType: string): Promise<void> {
  const bucket = getConfig().UPLOADS_BUCKET;
  await s3Client().send(
    new CopyObjectCommand({
      Bucket: bucket,
      Key: key,
      CopySource: `${bucket}/${key.split('/').map(encodeURIComponent).join('/')}`,
      // S3 refuses a copy onto itself that changes nothing; the new metadata is that change.
      MetadataDirective: 'REPLACE',
      ContentType: contentType,
      Metadata: { 'last-used': new Date().toISOString() },
    }),
  );
}

export async function deleteInput(key: string): Promise<void> {
  await s3Client().send(new DeleteObjectCommand({ Bucket: getConfig().UPLOADS_BUCKET, Key: key }));
}

export interface StoredObject {
  key: string;
  name: string;
  size: number;
}

export async function listOutputs(userId: string, jobId: string): Promise<StoredObject[]> {
  const prefix = outputPrefix(userId, jobId);
  const { Contents = [] } = await s3Client().send(new ListObjectsV2Command({ Bucket: getConfig().OUTPUTS_BUCKET, Prefix: prefix }));
  return Contents.filter((o) => o.Key && !o.Key.slice(prefix.length).includes('/')).map((o) => ({ key: o.Key!, name: o.Key!.slice(prefix.length), size: o.Size ?? 0 }));
}

/** A time-limited download link that saves under the file's own name. */
export async function presignDownload(key: string, fileName: string, contentType: string): Promise<string> {
  return getSignedUrl(
    s3Client(),
    new GetObjectCommand({
      Bucket: getConfig().OUTPUTS_BUCKET,
      Key: key,
      ResponseContentType: contentType,
      ResponseContentDisposition: `attachment; filename="${fileName.replace(/"/g, '')}"`,
    }),
    { expiresIn: DOWNLOAD_URL_SECONDS },
  );
}

/** The worker's copy of a job's input. */
export async function downloadInput(key: string, file: string): Promise<void> {
  const { Body } = await s3Client().send(new GetObjectCommand({ Bucket: getConfig().UPLOADS_BUCKET, Key: key }));
  await pipeline(Body as Readable, createWriteStream(file));
}

/** Stores one output file under the job's prefix (`name` may hold a sub-folder, e.g. frames/). */
export async function uploadOutput(userId: string, jobId: string, name: string, file: string, contentType: string): Promise<{ key: string; size: number }> {
  const key = `${outputPrefix(userId, jobId)}${name}`;
  // A render tool wrote it, in a folder it owns: read only what the path really names.
  const handle = await openToRead(file);
  const body = await handle.readFile().finally(() => handle.close());
  await s3Client().send(new PutObjectCommand({ Bucket: getConfig().OUTPUTS_BUCKET, Key: key, Body: body, ContentType: contentType }));
  return { key, size: body.length };
}

/** Fetches an output back (a resumed animation needs the frames an earlier worker stored). */
export async function downloadOutput(userId: string, jobId: string, name: string, file: string): Promise<void> {
  const { Body } = await s3Client().send(new GetObjectCommand({ Bucket: getConfig().OUTPUTS_BUCKET, Key: `${outputPrefix(userId, jobId)}${name}` }));
  await pipeline(Body as Readable, createWriteStream(file));
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
  const { Body } = await s3Client().send(new GetObjectCommand({ Bucket: getConfig().OUTPUTS_BUCKET, Key: `${outputPrefix(userId, jobId)}${name}` }));
  return Body as Readable;
}

/** One stored output by its whole key (a listed output, read into a batch's ZIP), as a stream. */
export async function readOutputAt(key: string): Promise<Readable> {
  const { Body } = await s3Client().send(new GetObjectCommand({ Bucket: getConfig().OUTPUTS_BUCKET, Key: key }));
  return Body as Readable;
}

/** Stores a large output (a video) as a multipart upload, streamed from the file, parts sent side by side. */
export async function uploadLargeOutput(userId: string, jobId: string, name: string, file: string, contentType: string): Promise<{ key: string; size: number }> {
  const key = `${outputPrefix(userId, jobId)}${name}`;
  const handle = await openToRead(file);
  const { size } = await handle.stat();
  await new Upload({
    client: s3Client(),
    params: { Bucket: getConfig().OUTPUTS_BUCKET, Key: key, Body: handle.createReadStream(), ContentType: contentType },
    partSize: 8 * 1024 * 1024,
    queueSize: 4,
  }).done();
  return { key, size };
}

/** The stored outputs under a folder of the job's prefix (e.g. 'frames/'), a listing page at a time. */
async function* outputPagesUnder(userId: string, jobId: string, folder: string): AsyncGenerator<{ Key?: string; Size?: number }[]> {
  let ContinuationToken: string | undefined;
  do {
    const page = await s3Client().send(new ListObjectsV2Command({ Bucket: getConfig().OUTPUTS_BUCKET, Prefix: `${outputPrefix(userId, jobId)}${folder}`, ContinuationToken }));
    yield page.Contents ?? [];
    ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (ContinuationToken);
}

/** Deletes every output under a folder of the job's prefix (e.g. 'frames/'); returns how many. */
export async function deleteOutputsUnder(userId: string, jobId: string, folder: string): Promise<number> {
  let deleted = 0;
  for await (const page of outputPagesUnder(userId, jobId, folder)) {
    const objects = page.map((o) => ({ Key: o.Key! }));
    if (objects.length > 0) {
      await s3Client().send(new DeleteObjectsCommand({ Bucket: getConfig().OUTPUTS_BUCKET, Delete: { Objects: objects, Quiet: true } }));
      deleted += objects.length;
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
  await new Upload({
    client: s3Client(),
    params: { Bucket: getConfig().OUTPUTS_BUCKET, Key: key, Body: body.pipe(counted), ContentType: contentType },
    partSize: 8 * 1024 * 1024,
    queueSize: 4,
  }).done();
  return { key, size };
}

/** Stores a ZIP made as a stream (a batch's outputs) under its whole key as a multipart upload, two parts side by side. */
export async function uploadOutputArchive(key: string, body: Readable): Promise<void> {
  await new Upload({ client: s3Client(), params: { Bucket: getConfig().OUTPUTS_BUCKET, Key: key, Body: body, ContentType: 'application/zip' }, partSize: 8 * 1024 * 1024, queueSize: 2 }).done();
}

/** Whether an output exists (a frame's preview may be missing when its upload failed). */
export async function outputExists(key: string): Promise<boolean> {
  try {
    await s3Client().send(new HeadObjectCommand({ Bucket: getConfig().OUTPUTS_BUCKET, Key: key }));
    return true;
  } catch (error) {
    if ((error as { name?: string }).name === 'NotFound' || (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
    throw error;
  }
}

/** A time-limited link to show an output inline (an <img> of a frame's preview, the picture in an e-mail). */
export async function presignInline(key: string, contentType: string, expiresIn = DOWNLOAD_URL_SECONDS): Promise<string> {
  return getSignedUrl(s3Client(), new GetObjectCommand({ Bucket: getConfig().OUTPUTS_BUCKET, Key: key, ResponseContentType: contentType }), { expiresIn });
}

/** Where a live preview is kept, by the hash of what it shows (a lifecycle rule removes it after a day). */
const previewKey = (hash: string) => `previews/${hash}.jpg`;

/**
 * A presigned GET of one upload for whoever renders it (the caller checked it is the user's own): that object and nothing else.
 * Pinned to an ETag, If-Match is one of the signed headers, so the link reads that content only (a form posted again in
 * between is refused by storage, and by the reader, which compares the answer's ETag).
 */
export function presignInputRead(key: string, pin?: { etag: string; seconds: number }): Promise<string> {
  return getSignedUrl(s3Client(), new GetObjectCommand({ Bucket: getConfig().UPLOADS_BUCKET, Key: key, ...(pin ? { IfMatch: pin.etag } : {}) }), {
    expiresIn: pin?.seconds ?? PROBE_URL_SECONDS,
  });
}

/** The stored upload is no longer the content an ETag named (its upload form was posted again). */
export class InputChangedError extends Error {}

/**
 * A copy of one upload's content as its ETag names it: storage refuses another (If-Match), and the answer's own ETag is
 * compared too, for a store that ignores the condition (the local stack's).
 */
export async function downloadInputAt(key: string, etag: string, file: string, abortSignal?: AbortSignal): Promise<void> {
  let answer;
  try {
    answer = await s3Client().send(new GetObjectCommand({ Bucket: getConfig().UPLOADS_BUCKET, Key: key, IfMatch: etag }), { abortSignal });
  } catch (error) {
    if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 412) throw new InputChangedError(`${key} is no longer ${etag}`);
    throw error;
  }
  if (answer.ETag !== etag) {
    (answer.Body as Readable | undefined)?.destroy();
    throw new InputChangedError(`${key} is ${answer.ETag}, not ${etag}`);
  }
  await pipeline(answer.Body as Readable, createWriteStream(file));
}

/** A kept preview's JPEG, or undefined. */
export async function readKeptPreview(hash: string): Promise<Buffer | undefined> {
  try {
    const { Body } = await s3Client().send(new GetObjectCommand({ Bucket: getConfig().OUTPUTS_BUCKET, Key: previewKey(hash) }));
    return Buffer.from(await (Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray());
  } catch (error) {
    if ((error as { name?: string }).name === 'NoSuchKey') return undefined;
    throw error;
  }
}

export async function keepPreview(hash: string, jpeg: Buffer): Promise<void> {
  await s3Client().send(new PutObjectCommand({ Bucket: getConfig().OUTPUTS_BUCKET, Key: previewKey(hash), Body: jpeg, ContentType: 'image/jpeg' }));
}
