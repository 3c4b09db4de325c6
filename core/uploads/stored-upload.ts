import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import type { UploadKind } from '#shared/catalogue';
import { InvalidRequestError, RateLimitedError } from '../errors';
import { getItem, putItem } from '../db/items';
import { keys } from '../db/keys';
import { consumeWindow } from '../rate-limits/rate-limits';
import { downloadInput, headInput, measureInputDuration, MediaUnreadableError } from '../storage/storage';
import { inspectUploadFile, UploadRefusedError } from './upload-inspector';

/**
 * Checks a stored image or model (what storage holds, whatever the browser said) before
 * a job is accepted: a refusal is a 400 with the inspector's message, and nothing is
 * created or charged. The copy lives in a temporary folder only while it is read.
 */
export async function refuseUnsafeUpload(key: string, kind: UploadKind): Promise<void> {
  if (kind === 'audio') return;
  const dir = await mkdtemp(join(tmpdir(), 'inspect-'));
  try {
    const file = join(dir, `input${extname(key).toLowerCase()}`);
    await downloadInput(key, file);
    await inspectUploadFile(file, kind);
  } catch (error) {
    if (error instanceof UploadRefusedError) throw new InvalidRequestError(error.message, { field: 'uploadKey' });
    throw error;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Audio files one user may have measured in an hour (an upload measured once is not measured again): as many as upload tickets. */
export const PROBES_PER_HOUR = 120;
/** How long a measurement is kept: past any upload's life in the uploads bucket. */
const PROBE_KEPT_SECONDS = 7 * 86_400;

/**
 * The duration of a stored audio upload, measured by the media probe once per content: the
 * measurement is kept under the upload's key and ETag (the same presigned form posted again is
 * another content, measured again), so a batch of rows sharing one file, or a retried request,
 * probes it once. A user's measurements are rate-limited; a file the probe cannot read throws
 * MediaUnreadableError, and that answer is kept too.
 */
export async function measuredUploadSeconds(userId: string, key: string): Promise<number> {
  const etag = (await headInput(key))?.etag;
  // Rows of one batch sharing the upload ask at once: they wait for the one measurement under way.
  const flight = `${key}\n${etag}`;
  let measuring = inFlight.get(flight);
  if (!measuring) {
    measuring = measureOnce(userId, key, etag).finally(() => inFlight.delete(flight));
    inFlight.set(flight, measuring);
  }
  return measuring;
}

/** Measurements under way in this process, by upload key and ETag. */
const inFlight = new Map<string, Promise<number>>();

async function measureOnce(userId: string, key: string, etag: string | undefined): Promise<number> {
  const cached = etag ? await getItem(keys.probedUpload(key, etag)) : undefined;
  if (cached) {
    if (typeof cached.unreadable === 'string') throw new MediaUnreadableError(cached.unreadable);
    return Number(cached.seconds);
  }
  const allowed = await consumeWindow('probe', userId, PROBES_PER_HOUR, 3600);
  if (!allowed.allowed) throw new RateLimitedError('Too many audio files measured in the last hour. Please try again later.', allowed.resetSeconds);
  let measured: { seconds: number } | { unreadable: string };
  try {
    measured = { seconds: await measureInputDuration(key) };
  } catch (error) {
    if (!(error instanceof MediaUnreadableError)) throw error;
    measured = { unreadable: error.message };
  }
  if (etag) {
    await putItem({ Item: { ...keys.probedUpload(key, etag), entity: 'probe', ...measured, expiresAt: Math.floor(Date.now() / 1000) + PROBE_KEPT_SECONDS } });
  }
  if ('unreadable' in measured) throw new MediaUnreadableError(measured.unreadable);
  return measured.seconds;
}
