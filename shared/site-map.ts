/**
 * What search engines may read: robots.txt and a sitemap of the public pages (the
 * catalogue, each scene's customise page, About, the API reference). Written next to
 * the web app at deploy (infra/constructs/site.ts) and served by the local stack, from
 * the same functions, with the site's own address.
 */
import { scenes } from './catalogue';

/** The pages anyone can open without an account. */
export function publicPaths(): string[] {
  return ['/', '/about', '/developers', ...scenes.map((scene) => `/customize/${scene.id}`)];
}

export function robotsTxt(siteUrl: string): string {
  // The signed-in areas and the API have nothing a search engine should index.
  const privateAreas = ['/api/', '/job-history', '/profile', '/favorites', '/admin/', '/batch/', '/local/'];
  return ['User-agent: *', 'Allow: /', ...privateAreas.map((path) => `Disallow: ${path}`), '', `Sitemap: ${siteUrl}/sitemap.xml`, ''].join('\n');
}

export function sitemapXml(siteUrl: string): string {
  const urls = publicPaths().map((path) => `  <url><loc>${siteUrl}${path}</loc></url>`);
  return ['<?xml version="1.0" encoding="UTF-8"?>', '<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">', ...urls, '</urlset>', ''].join('\n');
}
