/**
 * A CSV batch of audio rows and the media probe: a batch the balance cannot cover costs the probe
 * nothing, one upload shared by many rows is measured once, and a user's measurements are bounded.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getScene } from '#shared/catalogue';
import { planRender } from '#shared/pricing';
import { createJobRequest } from '#shared/schemas';
import { startBatch, BatchCreditsError } from '#core/batches/batches';
import { bindPorts, ports, type Farm, type Ports } from '#core/ports';
import { api, grantCredits, postToStorage, verifiedUser, type TestUser } from './helpers';

const audioScene = getScene(3)!;
let probes = 0;
let bound: Ports;
/** The farm is not asked to render here: these jobs exist to be priced. */
const idleFarm: Farm = { keepsOwnLine: false, submit: async () => [], isWaiting: async () => false, cancel: async () => {} };

beforeAll(() => {
  bound = ports();
  bindPorts({
    ...bound,
    farm: () => idleFarm,
    mediaDuration: (upload) => {
      probes += 1;
      return bound.mediaDuration(upload);
    },
  });
});
afterAll(() => bindPorts(bound));

async function uploadedTone(user: TestUser, seconds: number): Promise<string> {
  const file = join(mkdtempSync(join(tmpdir(), 'batch-tone-')), 'beat.wav');
  execFileSync('ffmpeg', ['-v', 'error', '-f', 'lavfi', '-i', `sine=frequency=220:duration=${seconds}`, file]);
  const bytes = readFileSync(file);
  const ticket = (await api('/api/uploads', { token: user.token, body: { sceneId: audioScene.id, fileName: 'beat.wav', contentType: 'audio/wav', size: bytes.length } })).body;
  expect((await postToStorage(ticket, bytes, 'beat.wav')).status).toBe(204);
  return ticket.key;
}

const row = (uploadKey: string) =>
  createJobRequest.parse({ sceneId: audioScene.id, mode: 'animation', resolutionX: 128, resolutionY: 128, options: '', uploadKey, mediaDurationSeconds: 0.5, isTest: false, paymentMethod: 'credits' });
const requesterOf = (user: TestUser) => ({ userId: user.userId, email: user.email, emailVerified: true });

describe('a CSV batch of audio rows and the media probe', () => {
  it('when a zero-credit account sends 100 audio rows, the batch is refused with its least cost and no upload is measured', async () => {
    const user = await verifiedUser();
    const key = await uploadedTone(user, 0.5);
    const before = probes;
    const refused = await startBatch(requesterOf(user), Array.from({ length: 100 }, () => row(key))).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(BatchCreditsError);
    expect((refused as BatchCreditsError).message).toMatch(/^This batch costs at least [\d.]+ credits and your balance is 0\. Please buy credits first\.$/);
    expect(probes - before).toBe(0);
  });

  it('when several rows share one upload, it is measured once and every row is priced for its measured length', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 100);
    const key = await uploadedTone(user, 0.5);
    const before = probes;
    const { batch, jobs } = await startBatch(requesterOf(user), Array.from({ length: 5 }, () => row(key)));
    expect(probes - before).toBe(1);
    const price = planRender(audioScene, { mode: 'animation', resolutionX: 128, resolutionY: 128, mediaDurationSeconds: 0.5 }, false).finalPrice;
    expect(jobs.map((job) => job.estimatedPrice)).toEqual(Array(5).fill(price));
    expect(batch.totalPrice).toBeCloseTo(5 * price, 5);
  });
});
