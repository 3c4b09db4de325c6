import type { Readable } from 'node:stream';
import { CopyObjectCommand, DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { createPresignedPost } from '@aws-sdk/s3-presigned-post';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';

/** What S3 answered a request that failed: its error's name and HTTP status. */
const nameOf = (error: unknown) => (error as { name?: string }).name;
const statusOf = (error: unknown) => (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;

/** A multipart upload's part: big enough that a video's parts are few, small enough that a few side by side fit a worker's memory. */
const PART_BYTES = 8 * 1024 * 1024;

/**
 * The core's bucket port (core/ports.ts, Bucket) on one S3 bucket, through the client composition made (its call
 * budget and injected faults); s3rver, locally. The core picks the keys; this adapter names the bucket.
 */
export class S3Bucket {
  constructor(
    private readonly client: S3Client,
    private readonly bucket: string,
  ) {}

  async presignPost(key: string, { contentType, maxBytes, expiresInSeconds }: { contentType: string; maxBytes: number; expiresInSeconds: number }): Promise<{ url: string; fields: Record<string, string> }> {
    return createPresignedPost(this.client, {
      Bucket: this.bucket,
      Key: key,
      Conditions: [
        ['content-length-range', 1, maxBytes],
        ['eq', '$Content-Type', contentType],
      ],
      Fields: { 'Content-Type': contentType },
      Expires: expiresInSeconds,
    });
  }

  async presignGet(key: string, link: { expiresInSeconds: number; contentType?: string; disposition?: string; ifMatch?: string }): Promise<string> {
    const read = new GetObjectCommand({
      Bucket: this.bucket,
      Key: key,
      ...(link.contentType ? { ResponseContentType: link.contentType } : {}),
      ...(link.disposition ? { ResponseContentDisposition: link.disposition } : {}),
      ...(link.ifMatch ? { IfMatch: link.ifMatch } : {}),
    });
    return getSignedUrl(this.client, read, { expiresIn: link.expiresInSeconds });
  }

  async head(key: string): Promise<{ size: number; contentType: string; etag: string } | undefined> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { size: head.ContentLength ?? 0, contentType: head.ContentType ?? '', etag: head.ETag ?? '' };
    } catch (error) {
      if (nameOf(error) === 'NotFound' || statusOf(error) === 404) return undefined;
      throw error;
    }
  }

  async read(key: string): Promise<Readable> {
    const { Body } = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    return Body as Readable;
  }

  async readIfMatch(key: string, etag: string, abortSignal?: AbortSignal): Promise<{ body: Readable; etag?: string } | undefined> {
    try {
      const { Body, ETag } = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key, IfMatch: etag }), { abortSignal });
      return { body: Body as Readable, etag: ETag };
    } catch (error) {
      if (statusOf(error) === 412) return undefined;
      throw error;
    }
  }

  async readBytes(key: string): Promise<Buffer | undefined> {
    try {
      const { Body } = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
      return Buffer.from(await Body!.transformToByteArray());
    } catch (error) {
      if (nameOf(error) === 'NoSuchKey') return undefined;
      throw error;
    }
  }

  async put(key: string, body: Uint8Array, contentType: string): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: key, Body: body, ContentType: contentType }));
  }

  async upload(key: string, body: Readable, contentType: string, partsAtOnce: number): Promise<void> {
    await new Upload({ client: this.client, params: { Bucket: this.bucket, Key: key, Body: body, ContentType: contentType }, partSize: PART_BYTES, queueSize: partsAtOnce }).done();
  }

  async copyOntoItself(key: string, contentType: string, metadata: Record<string, string>): Promise<void> {
    await this.client.send(
      new CopyObjectCommand({
        Bucket: this.bucket,
        Key: key,
        CopySource: `${this.bucket}/${key.split('/').map(encodeURIComponent).join('/')}`,
        MetadataDirective: 'REPLACE',
        ContentType: contentType,
        Metadata: metadata,
      }),
    );
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async deleteMany(keys: string[]): Promise<void> {
    await this.client.send(new DeleteObjectsCommand({ Bucket: this.bucket, Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true } }));
  }

  async listPage(prefix: string, continueFrom?: string): Promise<{ objects: { key: string; size: number }[]; next?: string }> {
    const page = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ...(continueFrom ? { ContinuationToken: continueFrom } : {}) }));
    const objects = (page.Contents ?? []).filter((o) => o.Key).map((o) => ({ key: o.Key!, size: o.Size ?? 0 }));
    return { objects, next: page.IsTruncated ? page.NextContinuationToken : undefined };
  }
}
