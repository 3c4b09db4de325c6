/**
 * An upload ticket: a presigned POST for one input file, its key chosen by the server under the user's prefix, its size
 * capped at the scene's upload rule. Each one lets its holder store that much, so a user gets a bounded number an hour
 * (the web app and the render API share them).
 */
import { ACCEPTED_UPLOADS, getScene, requiredUploadKind } from '#shared/catalogue';
import { normalizeFileName } from '#shared/files';
import type { UploadTicket } from '#shared/api-types';
import type { UploadRequest } from '#shared/schemas';
import { RateLimitedError } from '../errors';
import { consumeWindow } from '../rate-limits/rate-limits';
import { presignUpload } from '../storage/storage';

/** Upload tickets of one user in an hour (a batch of 100 renders with its own files fits). */
export const UPLOAD_TICKETS_PER_HOUR = 120;

/** A ticket for a request the schema has checked (the scene, the file's type and its size against the scene's rule). */
export async function issueUploadTicket(userId: string, request: UploadRequest): Promise<UploadTicket> {
  const kind = requiredUploadKind(getScene(request.sceneId)!)!;
  const tickets = await consumeWindow('upload-ticket', userId, UPLOAD_TICKETS_PER_HOUR, 3600);
  if (!tickets.allowed) throw new RateLimitedError('Too many uploads in the last hour. Please try again later.', tickets.resetSeconds);
  return presignUpload(userId, normalizeFileName(request.fileName), request.contentType, ACCEPTED_UPLOADS[kind].maxBytes);
}
