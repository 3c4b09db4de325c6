/**
 * One job's files as its render worker reaches them: the customer's upload (read, checked
 * again on the very bytes Blender will open, deleted once the result is stored) and the
 * job's outputs under its own prefix. The worker's credentials reach nothing else
 * (adapters/worker-credentials.ts); this is the same scope, named. It applies the uploads'
 * rules (their inspection, how long they live) to the buckets' files, so it sits above
 * storage/ and uploads/ in a folder of its own.
 */
import type { Readable } from 'node:stream';
import type { UploadKind } from '#shared/catalogue';
import { inspectUploadFile, UploadRefusedError } from '../uploads/upload-inspector';
import { keepsUploadAfterRender } from '../uploads/upload-retention';
import { deleteInput, deleteOutputsUnder, downloadInput, downloadOutput, readOutput, uploadLargeOutput, uploadOutput, uploadOutputStream } from '../storage/storage';

export interface JobFilesScope {
  jobId: string;
  userId: string;
  inputKey?: string;
  /** A free test keeps its upload for the paid render that follows (keepsUploadAfterRender). */
  isTest?: boolean;
}

export function jobFiles(job: JobFilesScope) {
  const { userId, jobId, inputKey } = job;
  return {
    /**
     * The upload into `file`, checked as an upload is checked when it arrives (the upload's presigned form can be
     * posted again until it expires): the refusal's words when it is not what the scene takes, else undefined.
     */
    async fetchCheckedInput(file: string, kind: UploadKind): Promise<string | undefined> {
      if (!inputKey) throw new Error(`Job ${jobId} has no upload`);
      await downloadInput(inputKey, file);
      try {
        await inspectUploadFile(file, kind);
        return undefined;
      } catch (error) {
        if (error instanceof UploadRefusedError) return error.message;
        throw error;
      }
    },
    /** The result is stored: a paid render's upload is no longer needed, a free test's is kept. */
    deleteInput: async (): Promise<void> => (inputKey && !keepsUploadAfterRender(job) ? deleteInput(inputKey) : undefined),
    /** A file the render made, stored under the job's outputs as `name`. */
    store: (name: string, file: string, contentType: string) => uploadOutput(userId, jobId, name, file, contentType),
    /** The same for a large file (a video): a multipart upload. */
    storeLarge: (name: string, file: string, contentType: string) => uploadLargeOutput(userId, jobId, name, file, contentType),
    /** The same from a stream (a ZIP written as it is read). */
    storeStream: (name: string, body: Readable, contentType: string) => uploadOutputStream(userId, jobId, name, body, contentType),
    /** A stored output, as a stream. */
    read: (name: string): Promise<Readable> => readOutput(userId, jobId, name),
    /** A stored output, into `file`. */
    download: (name: string, file: string): Promise<void> => downloadOutput(userId, jobId, name, file),
    /** The outputs under a folder of the job's (its frames, segments or regions once the result is stored). */
    deleteUnder: (folder: string): Promise<number> => deleteOutputsUnder(userId, jobId, folder),
  };
}

export type JobFiles = ReturnType<typeof jobFiles>;
