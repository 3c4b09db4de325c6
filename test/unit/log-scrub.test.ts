import { describe, expect, it } from 'vitest';
import { hashUserId, scrub } from '#observability/logger';

describe('what a log line may not hold', () => {
  it('when a text quotes an e-mail address, a JWT, a bearer header, an API key or a card number, none of them is left', () => {
    const jwt = 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJl';
    const text = `to Jane.Doe+renders@mail.example.co.uk token ${jwt} Authorization: Bearer abc.def key rk_live_${'A'.repeat(43)} card 4242 4242 4242 4242 / 4000000000000002`;
    const clean = scrub(text);
    for (const secret of ['Jane.Doe', 'example.co.uk', jwt, 'abc.def', 'rk_live_', '4242 4242', '4000000000000002']) expect(clean).not.toContain(secret);
    expect(clean).toBe('to [email] token [token] Authorization: Bearer [token] key [api-key] card [card] / [card]');
  });

  it('when a text holds long numbers that are not card numbers (epoch milliseconds, longer sequence numbers, runs failing Luhn\'s check), they stay', () => {
    const text = 'at 1764080000000 and 1764080000001 record 49612345678901234567890123 id 4242424242424243';
    expect(scrub(text)).toBe(text);
  });

  it("when a user is named, it is by a stable 16-digit hash of the id, not the id", () => {
    const id = '2f1c9a8e-0b7d-4c55-9f0e-1a2b3c4d5e6f';
    expect(hashUserId(id)).toMatch(/^[0-9a-f]{16}$/);
    expect(hashUserId(id)).toBe(hashUserId(id));
    expect(hashUserId(id)).not.toBe(hashUserId(`${id}x`));
  });
});
