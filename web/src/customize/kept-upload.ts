/**
 * The customer's stored upload, kept in this tab's memory when the customise page goes away (to Job History after a
 * free test), so the page opened again has it back: the server keeps a free test's upload for the paid render and the
 * live previews that follow (core/uploads/upload-retention.ts). A paid render deletes the upload once it is done, so
 * one that a paid render was started with is not kept. A reload loses it (a File cannot be saved; the page then asks
 * for the file again), and it is kept per signed-in user, so nobody else on this browser gets it.
 */
import type { UploadState } from './form-state';

const kept = new Map<string, UploadState>();
/** Keys a paid render was started with: the render deletes them. */
const spent = new Set<string>();

const slot = (userId: string, sceneId: number) => `${userId}\n${sceneId}`;

/** The page goes away: a stored upload is kept for the next visit; anything else lets its picture go. */
export function keepUpload(userId: string | undefined, sceneId: number, upload: UploadState | null): void {
  if (!upload) return;
  if (userId && upload.status === 'uploaded' && upload.key && !spent.has(upload.key)) {
    kept.set(slot(userId, sceneId), upload);
    return;
  }
  if (upload.previewUrl) URL.revokeObjectURL(upload.previewUrl);
}

/** The page opens: the upload kept for this user and scene, if any (it is the page's again, so it leaves the store). */
export function takeKeptUpload(userId: string | undefined, sceneId: number): UploadState | null {
  if (!userId) return null;
  const upload = kept.get(slot(userId, sceneId)) ?? null;
  kept.delete(slot(userId, sceneId));
  return upload;
}

/** A paid render was started with this upload: the render deletes it once done, so the page will not offer it again. */
export function markUploadSpent(key: string | undefined): void {
  if (key) spent.add(key);
}
