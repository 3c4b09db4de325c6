import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { extname, join } from 'node:path';
import type { UploadKind } from '../../shared/catalogue';
import { InvalidRequestError } from '../errors';
import { downloadInput } from '../storage/storage';
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
