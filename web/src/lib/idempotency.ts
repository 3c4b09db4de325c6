/**
 * A fresh key for one submission: sent again with each retry of it, so the server
 * applies a double click or a retry after a network error once. getRandomValues,
 * unlike randomUUID, also exists on plain-http origins.
 */
export function newIdempotencyKey(): string {
  return Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
}
