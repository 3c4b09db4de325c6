import { createHash } from 'node:crypto';

/**
 * The site's Content-Security-Policy, from what the web app really loads:
 * - its own files, /config.json and /api/* ('self'), and the inline scripts of the
 *   built index.html (the first paint's: web/first-paint.ts), allowed by their hashes;
 * - Stripe.js and its frames (the card form), and Stripe's API it calls;
 * - Cognito's API (sign-in, sign-up, tokens) and, with Google sign-in, the hosted
 *   UI's token endpoint;
 * - the storage buckets: uploads are POSTed to a presigned form, outputs are shown
 *   (<img>, <video>) and downloaded (fetch) from presigned links;
 * - blob: and data: images (the upload's preview, the app's inline icons).
 * Everything else falls back to default-src 'self'; framing, plugins and <base> are refused.
 */
export interface CspOrigins {
  /** Where the browser reaches the user pool's API (and its hosted UI, with Google). */
  identity: string[];
  /** Where presigned uploads go and outputs come from. */
  storage: string[];
}

const STRIPE_SCRIPTS = 'https://js.stripe.com';
const STRIPE_FRAMES = ['https://js.stripe.com', 'https://hooks.stripe.com'];
const STRIPE_API = 'https://api.stripe.com';

export function contentSecurityPolicy(origins: CspOrigins, scriptHashes: readonly string[]): string {
  const directives: [string, string[]][] = [
    ['default-src', ["'self'"]],
    ['script-src', ["'self'", ...scriptHashes.map((hash) => `'${hash}'`), STRIPE_SCRIPTS]],
    // Components set inline styles (style attributes, injected <style>); without it the pages break in Chromium.
    ['style-src', ["'self'", "'unsafe-inline'"]],
    ['img-src', ["'self'", 'data:', 'blob:', ...origins.storage]],
    ['media-src', ["'self'", 'blob:', ...origins.storage]],
    ['connect-src', ["'self'", ...origins.identity, ...origins.storage, STRIPE_API]],
    ['frame-src', STRIPE_FRAMES],
    ['form-action', ["'self'"]],
    ['frame-ancestors', ["'none'"]],
    ['object-src', ["'none'"]],
    ['base-uri', ["'self'"]],
  ];
  return directives.map(([name, sources]) => `${name} ${sources.join(' ')}`).join('; ');
}

/** The origins of a deployed stack in `region` (a token at synth). */
export function awsOrigins(region: string): CspOrigins {
  return {
    identity: [`https://cognito-idp.${region}.amazonaws.com`, `https://*.auth.${region}.amazoncognito.com`],
    // Presigned links are virtual-hosted (https://<bucket>.s3.<region>.amazonaws.com/...).
    storage: [`https://*.s3.${region}.amazonaws.com`],
  };
}

/** 'sha256-...' of every inline <script> (one without src) of an HTML page, as browsers hash it. */
export function inlineScriptHashes(html: string): string[] {
  const hashes: string[] = [];
  for (const match of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)) {
    if (/\bsrc\s*=/i.test(match[1])) continue;
    hashes.push(`sha256-${createHash('sha256').update(match[2], 'utf8').digest('base64')}`);
  }
  return hashes;
}
