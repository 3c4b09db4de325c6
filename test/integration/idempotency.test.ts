import { describe, expect, it } from 'vitest';
import { getScene } from '#shared/catalogue';
import { quoteRender } from '#shared/pricing';
import { IDEMPOTENCY_KEY_INVALID } from '#shared/schemas';
import { IDEMPOTENCY_KEY_REUSED } from '#core/idempotency/idempotency';
import { listAllCreditHistory } from '#core/credits/credits';
import { getUser } from '#core/users/users';
import { api, grantCredits, smallTextStill, verifiedUser } from './helpers';

const priceOfSmallTextStill = quoteRender(getScene(1)!, { mode: 'still', resolutionX: 128, resolutionY: 128 }).finalPrice;
const withKey = (key: string) => ({ 'Idempotency-Key': key });

describe('Idempotency-Key on POST /api/jobs', () => {
  it('when the same request is sent twice at once and again later with one key, it makes one job and one debit', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    const send = () => api('/api/jobs', { token: user.token, body: smallTextStill(), headers: withKey('submit-1') });
    const answers = [...(await Promise.all([send(), send()])), await send()];
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const jobIds = new Set(answers.map((a) => a.body.job.jobId));
    expect(jobIds.size).toBe(1);
    expect((await api('/api/jobs', { token: user.token })).body.jobs).toHaveLength(1);
    const renders = (await listAllCreditHistory(user.userId)).filter((e) => e.type === 'render');
    expect(renders).toHaveLength(1);
    expect((await getUser(user.userId))!.credits).toBe(Number((10 - priceOfSmallTextStill).toFixed(2)));
  });

  it('when the same key comes with another body, it answers 409 with a clear message and changes nothing', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    const first = await api('/api/jobs', { token: user.token, body: smallTextStill(), headers: withKey('submit-2') });
    expect(first.status).toBe(200);
    const other = await api('/api/jobs', { token: user.token, body: smallTextStill({ customText: 'Other' }), headers: withKey('submit-2') });
    expect(other.status).toBe(409);
    expect(other.body).toMatchObject({ code: 'conflict', message: IDEMPOTENCY_KEY_REUSED });
    expect((await api('/api/jobs', { token: user.token })).body.jobs).toHaveLength(1);
    expect((await listAllCreditHistory(user.userId)).filter((e) => e.type === 'render')).toHaveLength(1);
  });

  it('when two users send the same key, each gets their own job: keys are scoped to the user', async () => {
    const [alice, bob] = await Promise.all([verifiedUser(), verifiedUser()]);
    await Promise.all([grantCredits(alice, 10), grantCredits(bob, 10)]);
    const a = await api('/api/jobs', { token: alice.token, body: smallTextStill(), headers: withKey('shared-key') });
    const b = await api('/api/jobs', { token: bob.token, body: smallTextStill(), headers: withKey('shared-key') });
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(a.body.job.jobId).not.toBe(b.body.job.jobId);
  });

  it('when a retry follows a refusal for lack of credits, the same key can still start the job once the balance covers it', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 0.01);
    const refused = await api('/api/jobs', { token: user.token, body: smallTextStill(), headers: withKey('submit-3') });
    expect(refused.status).toBe(402);
    await grantCredits(user, 10);
    const accepted = await api('/api/jobs', { token: user.token, body: smallTextStill(), headers: withKey('submit-3') });
    expect(accepted.status).toBe(200);
  });

  it('when a card-paid render is retried with the same key, the answer is the same job with the same payment', async () => {
    const user = await verifiedUser();
    const send = () => api('/api/jobs', { token: user.token, body: smallTextStill({ paymentMethod: 'card' }), headers: withKey('card-1') });
    const [first, second] = [await send(), await send()];
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body.job.jobId).toBe(first.body.job.jobId);
    expect(second.body.payment.paymentId).toBe(first.body.payment.paymentId);
  });

  it('when the key is empty, too long or not visible ASCII, it answers 400 and creates nothing', async () => {
    const user = await verifiedUser();
    await grantCredits(user, 10);
    for (const key of ['x'.repeat(256), 'with space', 'é']) {
      const answer = await api('/api/jobs', { token: user.token, body: smallTextStill(), headers: withKey(key) });
      expect(answer.status, key).toBe(400);
      expect(answer.body.message).toBe(IDEMPOTENCY_KEY_INVALID);
    }
    expect((await api('/api/jobs', { token: user.token })).body.jobs).toEqual([]);
  });
});

describe('Idempotency-Key on POST /api/credits/purchases', () => {
  it('when a purchase is retried with the same key, it answers with the same payment; another amount is refused', async () => {
    const user = await verifiedUser();
    const send = (credits: number) => api('/api/credits/purchases', { token: user.token, body: { credits }, headers: withKey('buy-1') });
    const [first, second] = await Promise.all([send(20), send(20)]);
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body.payment.paymentId).toBe(first.body.payment.paymentId);
    const other = await send(50);
    expect(other.status).toBe(409);
    expect(other.body.message).toBe(IDEMPOTENCY_KEY_REUSED);
  });
});
