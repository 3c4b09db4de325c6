import type { IncomingMessage, ServerResponse } from 'node:http';
import { readdir, readFile } from 'node:fs/promises';
import { join, basename } from 'node:path';
import type { ExtraRoute } from './api-server';
import { robotsTxt, sitemapXml } from '#shared/site-map';
import type { SiteConfig } from '#shared/site-config';

export function localSiteConfig(env: Record<string, string>): SiteConfig {
  return {
    region: env.AWS_REGION,
    userPoolId: env.USER_POOL_ID,
    userPoolClientId: env.USER_POOL_CLIENT_ID,
    userPoolEndpoint: env.COGNITO_ENDPOINT,
    paymentsMode: 'local',
    googleSignIn: false,
    ...(process.env.SITE_GATE_PASSWORD_HASH ? { siteGateHash: process.env.SITE_GATE_PASSWORD_HASH } : {}),
  };
}

/** Local only: /config.json, robots.txt, the sitemap and the local mail folder (/local/mail, /local/mail/<file>). */
export function localRoutes(getConfig: () => SiteConfig, mailDir: () => string, siteUrl = 'http://localhost:5173'): ExtraRoute {
  return async (req: IncomingMessage, res: ServerResponse, url: URL) => {
    if (req.method !== 'GET') return false;
    if (url.pathname === '/robots.txt' || url.pathname === '/sitemap.xml') {
      const robots = url.pathname === '/robots.txt';
      res.writeHead(200, { 'content-type': robots ? 'text/plain; charset=utf-8' : 'application/xml; charset=utf-8' });
      res.end(robots ? robotsTxt(siteUrl) : sitemapXml(siteUrl));
      return true;
    }
    if (url.pathname === '/config.json') {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
      res.end(JSON.stringify(getConfig()));
      return true;
    }
    if (url.pathname === '/local/mail' || url.pathname === '/local/mail/') {
      const files = (await readdir(mailDir()).catch(() => [] as string[])).filter((f) => f.endsWith('.eml')).sort().reverse();
      const rows = await Promise.all(
        files.map(async (file) => {
          const text = await readFile(join(mailDir(), file), 'utf8');
          const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(text)?.[1] ?? '';
          return { file, to: header('To'), subject: header('Subject'), date: header('Date') };
        }),
      );
      const accept = req.headers.accept ?? '';
      if (accept.includes('application/json')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(rows));
        return true;
      }
      const escape = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(
        `<!doctype html><meta charset="utf-8"><title>Local mail</title><style>body{font:15px system-ui;margin:2rem}td,th{padding:.3rem .8rem;text-align:left}</style>` +
          `<h1>Local mail folder</h1><p>Local only: the e-mails the product would send, newest first.</p><table><tr><th>Date</th><th>To</th><th>Subject</th></tr>` +
          rows.map((r) => `<tr><td>${escape(r.date)}</td><td>${escape(r.to)}</td><td><a href="/local/mail/${encodeURIComponent(r.file)}">${escape(r.subject)}</a></td></tr>`).join('') +
          `</table>`,
      );
      return true;
    }
    const match = /^\/local\/mail\/([^/]+\.eml)$/.exec(url.pathname);
    if (match) {
      const text = await readFile(join(mailDir(), basename(decodeURIComponent(match[1])))).catch(() => null);
      res.writeHead(text ? 200 : 404, { 'content-type': 'text/plain; charset=utf-8' });
      res.end(text ?? 'Not found');
      return true;
    }
    return false;
  };
}
