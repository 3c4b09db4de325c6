/**
 * The production build of the web app served as CloudFront serves it: hashed
 * assets immutable, the SPA fallback, compression, the security headers (with the
 * CSP built for the local stack's origins), and /api/* and /config.json passed to
 * the local API. Used by the Lighthouse bench and the CSP check in the browser.
 */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { extname, join, relative } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import { contentSecurityPolicy, inlineScriptHashes } from '../content-security-policy';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.jpg': 'image/jpeg',
  '.png': 'image/png',
  '.mp4': 'video/mp4',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
  '.map': 'application/json',
};
/** CloudFront compresses these types (and not images or video, already compressed). */
const COMPRESSIBLE = /^(text\/|application\/(json|xml)|image\/svg)/;

/** The response headers policy of infra/constructs/site.ts. */
const BASE_SECURITY_HEADERS = {
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'strict-origin-when-cross-origin',
  'x-xss-protection': '1; mode=block',
};

export function filesOf(dir: string): Map<string, Buffer> {
  const files = new Map<string, Buffer>();
  const walk = (current: string) => {
    for (const name of readdirSync(current)) {
      const path = join(current, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(`/${relative(dir, path).split('\\').join('/')}`, readFileSync(path));
    }
  };
  walk(dir);
  return files;
}

function proxy(req: IncomingMessage, res: ServerResponse, target: URL, securityHeaders: Record<string, string>): void {
  // The viewer's Host is kept, as the local API's cross-site check compares it with Origin (CloudFront's guard sees the viewer's too).
  const upstream = httpRequest(target, { method: req.method, headers: req.headers }, (answer) => {
    res.writeHead(answer.statusCode ?? 502, { ...answer.headers, ...securityHeaders });
    answer.pipe(res);
  });
  upstream.on('error', () => {
    res.writeHead(502);
    res.end();
  });
  req.pipe(upstream);
}

/**
 * The request handler. `stackEnv` gives the local identity and storage endpoints the
 * CSP allows, where a deployed site allows Cognito's and S3's (infra/constructs/site.ts).
 */
export function productionSite(files: Map<string, Buffer>, apiUrl: string, stackEnv: Record<string, string>) {
  const csp = contentSecurityPolicy(
    { identity: [stackEnv.COGNITO_ENDPOINT], storage: [stackEnv.S3_ENDPOINT] },
    inlineScriptHashes(files.get('/index.html')?.toString('utf8') ?? ''),
  );
  const SECURITY_HEADERS: Record<string, string> = { ...BASE_SECURITY_HEADERS, 'content-security-policy': csp };
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://cdn');
    if (url.pathname.startsWith('/api/') || url.pathname === '/config.json') return proxy(req, res, new URL(url.pathname + url.search, apiUrl), SECURITY_HEADERS);
    const path = /\.[A-Za-z0-9]+$/.test(url.pathname) ? url.pathname : '/index.html';
    const body = files.get(path);
    if (!body) {
      res.writeHead(403, SECURITY_HEADERS);
      res.end();
      return;
    }
    const type = TYPES[extname(path)] ?? 'application/octet-stream';
    const headers: Record<string, string> = {
      ...SECURITY_HEADERS,
      'content-type': type,
      'cache-control': path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
    };
    let payload = body;
    const accepts = String(req.headers['accept-encoding'] ?? '');
    if (COMPRESSIBLE.test(type) && body.length > 1000) {
      if (accepts.includes('br')) [payload, headers['content-encoding']] = [brotliCompressSync(body), 'br'];
      else if (accepts.includes('gzip')) [payload, headers['content-encoding']] = [gzipSync(body), 'gzip'];
      headers.vary = 'Accept-Encoding';
    }
    headers['content-length'] = String(payload.length);
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : payload);
  };
}
