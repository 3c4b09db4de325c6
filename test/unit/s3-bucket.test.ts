import { afterEach, describe, expect, it, vi } from 'vitest';
import { CopyObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { S3Bucket } from '#adapters/s3-bucket';

/** S3 cannot be reached here: the client's send is replaced at that edge, answering as S3's errors are named. */
afterEach(() => {
  vi.restoreAllMocks();
});

const s3Error = (name: string, httpStatusCode: number) => Object.assign(new Error(name), { name, $metadata: { httpStatusCode } });

function bucketAnswering(answer: (command: unknown) => unknown) {
  const sent: unknown[] = [];
  vi.spyOn(S3Client.prototype, 'send').mockImplementation(async (command: unknown) => {
    sent.push(command);
    return answer(command);
  });
  return { bucket: new S3Bucket(new S3Client({ region: 'us-east-1' }), 'the-bucket'), sent };
}

describe('the S3 bucket adapter', () => {
  it('when an object is not there, or no longer the content an ETag names, the answer says so; any other failure rejects', async () => {
    const { bucket } = bucketAnswering((command) => {
      const key = (command as { input: { Key: string } }).input.Key;
      if (key === 'gone') throw command instanceof HeadObjectCommand ? s3Error('NotFound', 404) : s3Error('NoSuchKey', 404);
      if (key === 'changed') throw s3Error('PreconditionFailed', 412);
      throw s3Error('InternalError', 500);
    });
    expect(await bucket.head('gone')).toBeUndefined();
    expect(await bucket.readBytes('gone')).toBeUndefined();
    expect(await bucket.readIfMatch('changed', '"e1"')).toBeUndefined();
    await expect(bucket.read('gone')).rejects.toThrow('NoSuchKey');
    await expect(bucket.head('broken')).rejects.toThrow('InternalError');
    await expect(bucket.readIfMatch('broken', '"e1"')).rejects.toThrow('InternalError');
  });

  it('when an object is there, its head and content come back in the core\'s words', async () => {
    const { bucket, sent } = bucketAnswering((command) =>
      command instanceof HeadObjectCommand
        ? { ContentLength: 12, ContentType: 'audio/mpeg', ETag: '"e1"' }
        : { Body: { transformToByteArray: async () => new Uint8Array([1, 2]) }, ETag: '"e1"' },
    );
    expect(await bucket.head('a')).toEqual({ size: 12, contentType: 'audio/mpeg', etag: '"e1"' });
    expect(await bucket.readBytes('a')).toEqual(Buffer.from([1, 2]));
    expect(await bucket.readIfMatch('a', '"e1"')).toMatchObject({ etag: '"e1"' });
    expect((sent.at(-1) as GetObjectCommand).input).toEqual({ Bucket: 'the-bucket', Key: 'a', IfMatch: '"e1"' });
  });

  it('when a listing is truncated it names where the next page starts, and a copy or a deletion names the objects in S3\'s terms', async () => {
    const { bucket, sent } = bucketAnswering((command) =>
      command instanceof ListObjectsV2Command
        ? { Contents: [{ Key: 'p/a', Size: 3 }, { Key: 'p/b' }], IsTruncated: !command.input.ContinuationToken, NextContinuationToken: 'next' }
        : {},
    );
    expect(await bucket.listPage('p/')).toEqual({ objects: [{ key: 'p/a', size: 3 }, { key: 'p/b', size: 0 }], next: 'next' });
    expect((await bucket.listPage('p/', 'next')).next).toBeUndefined();
    await bucket.copyOntoItself('uploads/u 1/x#.wav', 'audio/wav', { 'last-used': 'today' });
    await bucket.deleteMany(['p/a', 'p/b']);
    const [copy, deletion] = sent.slice(-2) as [CopyObjectCommand, DeleteObjectsCommand];
    expect(copy.input).toMatchObject({ Bucket: 'the-bucket', Key: 'uploads/u 1/x#.wav', CopySource: 'the-bucket/uploads/u%201/x%23.wav', MetadataDirective: 'REPLACE', Metadata: { 'last-used': 'today' } });
    expect(deletion.input).toEqual({ Bucket: 'the-bucket', Delete: { Objects: [{ Key: 'p/a' }, { Key: 'p/b' }], Quiet: true } });
  });
});
