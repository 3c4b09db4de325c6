import { describe, expect, it } from 'vitest';
import { scenes } from '#shared/catalogue';
import { publicPaths, robotsTxt, sitemapXml } from '#shared/site-map';

describe('robots.txt and the sitemap', () => {
  it('when robots.txt is written, it allows the public pages, keeps crawlers out of the signed-in areas and names the sitemap', () => {
    const robots = robotsTxt('https://render.example.com');
    expect(robots).toMatch(/^User-agent: \*$/m);
    expect(robots).toMatch(/^Disallow: \/api\/$/m);
    expect(robots).toMatch(/^Disallow: \/job-history$/m);
    expect(robots).not.toMatch(/^Disallow: \/$/m);
    expect(robots).toMatch(/^Sitemap: https:\/\/render\.example\.com\/sitemap\.xml$/m);
    expect(robots).not.toContain('<');
  });

  it('when the sitemap is written, it lists the catalogue, About, the API reference and every scene page, absolute', () => {
    const xml = sitemapXml('https://render.example.com');
    expect(publicPaths()).toHaveLength(3 + scenes.length);
    for (const path of ['/', '/about', '/developers', '/customize/1']) expect(xml).toContain(`<loc>https://render.example.com${path}</loc>`);
    expect(xml).not.toContain('/job-history');
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>')).toBe(true);
  });
});
