import { describe, expect, it } from 'vitest';
import { getUser } from '#core/users/users';
import { imageTooLarge, modelRefersOutside, modelTooDetailed, MAX_MODEL_VERTICES } from '#shared/upload-limits';
import { asGlb, asGltf, pngClaiming, solidPng, texturedCube, withJson } from '../upload-fixtures';
import { abandonAndWaitForWorker, api, grantCredits, postToStorage, verifiedUser, type TestUser } from './helpers';

const MODEL_SCENE = 4;
const IMAGE_SCENE = 2;
const cube = texturedCube(solidPng(16, 16, [20, 180, 40]));

async function upload(user: TestUser, sceneId: number, bytes: Buffer, fileName: string, contentType: string) {
  const ticket = (await api('/api/uploads', { token: user.token, body: { sceneId, fileName, contentType, size: bytes.length } })).body;
  expect((await postToStorage(ticket, bytes, fileName)).status).toBe(204);
  return ticket;
}

const stillOf = (sceneId: number, uploadKey: string, overrides: Record<string, unknown> = {}) => ({
  sceneId,
  mode: 'still',
  resolutionX: 128,
  resolutionY: 128,
  options: '',
  uploadKey,
  isTest: false,
  paymentMethod: 'credits',
  ...overrides,
});

async function expectRefusedAndNothingChanged(user: TestUser, body: object, message: string) {
  const refused = await api('/api/jobs', { token: user.token, body });
  expect(refused.status, JSON.stringify(refused.body)).toBe(400);
  expect(refused.body.message).toBe(message);
  expect((await api('/api/jobs', { token: user.token })).body.jobs).toEqual([]);
  expect((await getUser(user.userId))!.credits).toBe(20);
}

async function waitForJob(user: TestUser, jobId: string, until: (job: any) => boolean, timeoutMs = 120_000) {
  for (const deadline = Date.now() + timeoutMs; ; ) {
    const { body } = await api(`/api/jobs/${jobId}`, { token: user.token });
    if (until(body.job)) return body.job;
    if (Date.now() > deadline) throw new Error(`job ${jobId} stuck in ${body.job.status}`);
    await new Promise((r) => setTimeout(r, 300));
  }
}

describe('uploads that would reach the render machine\'s own files', () => {
  it('when a .gltf names /dev/zero as its buffer, the job is refused with a clear 400, nothing is created and nothing is debited', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 20);
    const gltf = JSON.parse(asGltf(cube).toString());
    gltf.buffers[0].uri = '/dev/zero';
    const ticket = await upload(user, MODEL_SCENE, Buffer.from(JSON.stringify(gltf)), 'model.gltf', 'model/gltf+json');
    await expectRefusedAndNothingChanged(user, stillOf(MODEL_SCENE, ticket.key), modelRefersOutside('/dev/zero'));
  });

  it('when a .glb names ../../etc/passwd as an image, the job is refused with a clear 400 and nothing changes', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 20);
    const glb = asGlb(withJson(cube, (json) => (json.images[0] = { uri: '../../etc/passwd' })));
    const ticket = await upload(user, MODEL_SCENE, glb, 'model.glb', 'model/gltf-binary');
    await expectRefusedAndNothingChanged(user, stillOf(MODEL_SCENE, ticket.key), modelRefersOutside('../../etc/passwd'));
  });

  it('when a model declares more vertices than a render accepts, the job is refused before Blender sees it', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 20);
    const glb = asGlb(withJson(cube, (json) => (json.accessors[0].count = MAX_MODEL_VERTICES * 4)));
    const ticket = await upload(user, MODEL_SCENE, glb, 'model.glb', 'application/octet-stream');
    await expectRefusedAndNothingChanged(user, stillOf(MODEL_SCENE, ticket.key), modelTooDetailed('vertices', MAX_MODEL_VERTICES * 4));
  });

  it('when an image claims 50,000 x 50,000 pixels, even a free test render is refused with a clear 400', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 20);
    const ticket = await upload(user, IMAGE_SCENE, pngClaiming(50_000, 50_000), 'bomb.png', 'image/png');
    await expectRefusedAndNothingChanged(user, stillOf(IMAGE_SCENE, ticket.key, { isTest: true }), imageTooLarge(50_000, 50_000, 'upload'));
  });

  it('when a .glb embeds its texture, the job is accepted', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 20);
    const ticket = await upload(user, MODEL_SCENE, asGlb(cube), 'cube.glb', 'model/gltf-binary');
    const created = await api('/api/jobs', { token: user.token, body: stillOf(MODEL_SCENE, ticket.key, { isTest: true }) });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    await abandonAndWaitForWorker(user, created.body.job.jobId);
  });

  it('when the upload is posted again with other content after the job was accepted, the worker refuses it before Blender starts', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 20);
    const ticket = await upload(user, MODEL_SCENE, asGlb(cube), 'cube.glb', 'model/gltf-binary');
    // Paid by card: the job waits for the payment, which leaves time to swap the file under the accepted key.
    const created = await api('/api/jobs', { token: user.token, body: stillOf(MODEL_SCENE, ticket.key, { paymentMethod: 'card' }) });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const swapped = asGlb(withJson(cube, (json) => json.buffers.push({ uri: '/dev/zero', byteLength: 1 << 30 })));
    expect((await postToStorage(ticket, swapped, 'cube.glb')).status).toBe(204);
    const paid = await api('/api/payments/local/confirm', { token: user.token, body: { paymentId: created.body.payment.paymentId, cardNumber: '4242 4242 4242 4242' } });
    expect(paid.status).toBe(200);
    const job = await waitForJob(user, created.body.job.jobId, (j) => j.status === 'failed' || j.status === 'done');
    expect(job).toMatchObject({ status: 'failed', crashReason: modelRefersOutside('/dev/zero') });
  });
});
