import { describe, expect, it } from 'vitest';
import { getItem } from '#core/db/items';
import { keys } from '#core/db/keys';
import { dayOf } from '#core/analytics/counters';
import { moveCredits } from '#core/credits/credits';
import { api, expiredToken, forgedToken, verifiedUser } from './helpers';

async function signupsToday(): Promise<number> {
  const item = await getItem(keys.dailyCounters(dayOf(new Date())), { consistent: true });
  return (item?.new_signups as number | undefined) ?? 0;
}

describe('identity on protected routes', () => {
  it('when the token is missing, forged or expired, it answers 401', async () => {
    expect((await api('/api/me')).status).toBe(401);
    expect((await api('/api/me', { token: forgedToken() })).status).toBe(401);
    expect((await api('/api/me', { token: expiredToken() })).status).toBe(401);
    expect((await api('/api/me', { token: 'not-a-jwt' })).status).toBe(401);
  });
});

describe('GET /api/me', () => {
  it('when a user calls it first, it creates the record with 0 credits and counts the signup once', async () => {
    const user = await verifiedUser();
    const before = await signupsToday();
    const answers = await Promise.all(Array.from({ length: 5 }, () => api('/api/me', { token: user.token })));
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers[0].body).toMatchObject({ email: user.email, credits: 0, isAdmin: false, emailVerified: true, lastLogin: null });
    expect(await signupsToday()).toBe(before + 1);
    await api('/api/me', { token: user.token });
    expect(await signupsToday()).toBe(before + 1);
  });

  it('when the user is in the admin group, it says so', async () => {
    const admin = await verifiedUser(['admin']);
    expect((await api('/api/me', { token: admin.token })).body.isAdmin).toBe(true);
  });
});

describe('POST /api/me/login', () => {
  it('when a user signs in, it records lastLogin', async () => {
    const user = await verifiedUser();
    expect((await api('/api/me/login', { token: user.token, body: { method: 'email' } })).status).toBe(200);
    const me = await api('/api/me', { token: user.token });
    expect(Date.now() - Date.parse(me.body.lastLogin)).toBeLessThan(60_000);
  });

  it('when the body is malformed, oversize or has unknown fields, it answers 400 or 413 and changes nothing', async () => {
    const user = await verifiedUser();
    expect((await api('/api/me/login', { token: user.token, rawBody: '{"method":' })).status).toBe(400);
    expect((await api('/api/me/login', { token: user.token, body: { method: 'sms' } })).status).toBe(400);
    expect((await api('/api/me/login', { token: user.token, body: { method: 'email', credits: 1000 } })).status).toBe(400);
    expect((await api('/api/me/login', { token: user.token, rawBody: JSON.stringify({ method: 'email', pad: 'x'.repeat(100_000) }) })).status).toBe(413);
    expect((await api('/api/me', { token: user.token })).body).toMatchObject({ credits: 0, lastLogin: null });
  });
});

describe('favorites', () => {
  it('when a favorite is added twice at once, it keeps exactly one', async () => {
    const user = await verifiedUser();
    const answers = await Promise.all([api('/api/favorites/3', { method: 'PUT', token: user.token }), api('/api/favorites/3', { method: 'PUT', token: user.token })]);
    expect(answers.map((a) => a.status)).toEqual([200, 200]);
    expect(answers.filter((a) => a.body.created)).toHaveLength(1);
    const list = await api('/api/favorites', { token: user.token });
    expect(list.body.favorites).toEqual([expect.objectContaining({ sceneId: 3 })]);
  });

  it('when favorites are listed, they come newest first and each user sees only their own', async () => {
    const user = await verifiedUser();
    const other = await verifiedUser();
    await api('/api/favorites/1', { method: 'PUT', token: user.token });
    await new Promise((r) => setTimeout(r, 5));
    await api('/api/favorites/5', { method: 'PUT', token: user.token });
    await api('/api/favorites/2', { method: 'PUT', token: other.token });
    const list = await api('/api/favorites', { token: user.token });
    expect(list.body.favorites.map((f: { sceneId: number }) => f.sceneId)).toEqual([5, 1]);
    expect((await api('/api/favorites/2', { method: 'DELETE', token: user.token })).status).toBe(404);
    expect((await api('/api/favorites', { token: other.token })).body.favorites).toHaveLength(1);
  });

  it('when a favorite is removed, it is gone; an unknown scene is refused', async () => {
    const user = await verifiedUser();
    await api('/api/favorites/4', { method: 'PUT', token: user.token });
    expect((await api('/api/favorites/4', { method: 'DELETE', token: user.token })).status).toBe(200);
    expect((await api('/api/favorites', { token: user.token })).body.favorites).toEqual([]);
    expect((await api('/api/favorites/99', { method: 'PUT', token: user.token })).body.message).toBe('Scene not found');
    expect((await api('/api/favorites/abc', { method: 'PUT', token: user.token })).status).toBe(400);
  });
});

describe('GET /api/credits/history', () => {
  it('when the ledger has entries, it lists them newest first, 20 by default, with the balance after each', async () => {
    const user = await verifiedUser();
    await api('/api/me', { token: user.token });
    for (let i = 1; i <= 22; i++) await moveCredits({ userId: user.userId, amount: 1, type: 'bonus' });
    const history = await api('/api/credits/history', { token: user.token });
    expect(history.body.entries).toHaveLength(20);
    expect(history.body.entries[0]).toMatchObject({ amount: 1, type: 'bonus', balance: 22 });
    expect(history.body.entries[19].balance).toBe(3);
    expect((await api('/api/credits/history?limit=10', { token: user.token })).body.entries).toHaveLength(10);
    expect((await api('/api/credits/history?limit=0', { token: user.token })).status).toBe(400);
    expect((await api('/api/me', { token: user.token })).body.credits).toBe(22);
  });
});
