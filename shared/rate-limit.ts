/**
 * The render API's budget per API key, which the server enforces and the
 * OpenAPI document states, so a client can plan without being refused.
 */

/** Requests one API key may make in each one-second window. */
export const API_KEY_REQUESTS_PER_SECOND = 20;

/** Jobs of one account on the render farm at once (the rest wait in the queue); the server's default. */
export const RENDERS_AT_ONCE_PER_ACCOUNT = 2;

/** The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers), as clients read them. */
export const RATE_LIMIT_HEADERS = { limit: 'RateLimit-Limit', remaining: 'RateLimit-Remaining', reset: 'RateLimit-Reset' } as const;

/** Live previews a signed-in customer (or an API key's owner) may ask for in a minute: one a second while they edit. */
export const PREVIEWS_PER_MINUTE = 60;
/** Live previews a visitor who is not signed in may ask for in a minute (counted by their address, salted and hashed). */
export const VISITOR_PREVIEWS_PER_MINUTE = 30;
