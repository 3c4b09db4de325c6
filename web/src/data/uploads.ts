/** A customer's file stored for their render: a presigned POST asked of the API, then the file sent to storage. */
import type { UploadRequest } from '#shared/schemas';
import { api, uploadToStorage } from '../lib/api';

/**
 * Stores `file`: the API names it (`onNamed`: the stored, normalised name) and presigns the
 * POST, the file goes to storage with its progress (`onProgress`, 0 to 1) until `signal`
 * stops it. Answers the stored key.
 */
export async function storeUpload(
  request: UploadRequest,
  file: File,
  { onNamed, onProgress, signal }: { onNamed: (fileName: string) => void; onProgress: (fraction: number) => void; signal: AbortSignal },
): Promise<string> {
  const ticket = await api.createUpload(request);
  onNamed(ticket.fileName);
  await uploadToStorage(ticket, file, onProgress, signal);
  return ticket.key;
}
