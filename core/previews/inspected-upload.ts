/**
 * A live preview's upload is inspected once per content: the inspector's verdict is kept under the
 * upload's key and ETag, so a customer changing their text or colours over one photo does not make
 * the API download (up to 100 MB) and inspect it again for every picture. The copy inspected is the
 * content the ETag names (storage/storage.ts, downloadInputAt), and the preview's own download is
 * pinned to the same ETag: what renders is what was inspected.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import type { UploadKind } from '#shared/catalogue';
import { ConflictError, InvalidRequestError } from '../errors';
import { getItem, putItem } from '../db/items';
import { keys } from '../db/keys';
import { downloadInputAt, InputChangedError } from '../storage/storage';
import { inspectUploadFile, UploadRefusedError } from '../uploads/upload-inspector';

/**
 * How long a verdict is trusted: a customer's sitting on the customise page. Short, because the
 * inspector's rules tighten between deploys and a verdict kept longer would outlive them (a job
 * inspects its upload again whatever a preview kept).
 */
const VERDICT_KEPT_SECONDS = 3600;

const UPLOAD_CHANGED_MESSAGE = 'Your uploaded file changed while it was checked. The preview will use the new file on your next change.';

/** Refuses (400, the inspector's words) an upload's content the inspector refuses; inspects each key and ETag once an hour at most. */
export async function refuseUnsafePreviewUpload(upload: { key: string; etag: string }, kind: UploadKind): Promise<void> {
  if (kind === 'audio') return;
  const kept = await getItem(keys.inspectedUpload(upload.key, upload.etag));
  // TTL removes an item within days, not at once: an expired verdict is not read.
  const verdict = kept && Number(kept.expiresAt) * 1000 > Date.now() ? (kept as { refused?: string }) : await inspectOnce(upload, kind);
  if (typeof verdict.refused === 'string') throw new InvalidRequestError(verdict.refused, { field: 'uploadKey' });
}

async function inspectOnce(upload: { key: string; etag: string }, kind: UploadKind): Promise<{ refused?: string }> {
  const dir = await mkdtemp(join(tmpdir(), 'inspect-'));
  let verdict: { refused?: string };
  try {
    const file = join(dir, `input${extname(upload.key).toLowerCase()}`);
    await downloadInputAt(upload.key, upload.etag, file);
    await inspectUploadFile(file, kind);
    verdict = {};
  } catch (error) {
    if (error instanceof InputChangedError) throw new ConflictError(UPLOAD_CHANGED_MESSAGE);
    if (!(error instanceof UploadRefusedError)) throw error;
    verdict = { refused: error.message };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  await putItem({ Item: { ...keys.inspectedUpload(upload.key, upload.etag), entity: 'inspection', ...verdict, expiresAt: Math.floor(Date.now() / 1000) + VERDICT_KEPT_SECONDS } });
  return verdict;
}
