import { timingSafeEqual } from 'node:crypto';

/** The header CloudFront adds to every request it forwards to the API. */
export const ORIGIN_VERIFY_HEADER = 'x-origin-verify';

/**
 * True when the request came through CloudFront: it carries the secret header
 * value, compared in constant time. With no secret configured (the local stack,
 * which has no CloudFront) every request passes.
 */
export function cameThroughCloudFront(headers: Record<string, string | undefined> | undefined, secret: string | undefined): boolean {
  if (!secret) return true;
  const sent = Object.entries(headers ?? {}).find(([name]) => name.toLowerCase() === ORIGIN_VERIFY_HEADER)?.[1];
  if (sent === undefined) return false;
  const a = Buffer.from(sent);
  const b = Buffer.from(secret);
  return a.length === b.length && timingSafeEqual(a, b);
}
