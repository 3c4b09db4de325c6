import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Template } from 'aws-cdk-lib/assertions';
import { SYNTH_TIMEOUT_MS, resourcesOf, synthesizeTemplate } from './stack-template';

/** A stand-in for `npm run build:web`'s output: index.html, hashed chunks, a public file. */
const dist = mkdtempSync(join(tmpdir(), 'cloud-render-web-'));
mkdirSync(join(dist, 'assets'));
writeFileSync(join(dist, 'index.html'), '<!doctype html><script type="module" src="/assets/index-abc123.js"></script>');
writeFileSync(join(dist, 'assets', 'index-abc123.js'), 'console.log("app")');
writeFileSync(join(dist, 'favicon.svg'), '<svg/>');

let template: Template;
beforeAll(() => {
  template = synthesizeTemplate({ webDistDir: dist });
}, SYNTH_TIMEOUT_MS);
afterAll(() => rmSync(dist, { recursive: true, force: true }));

const deployments = () => resourcesOf(template, 'Custom::CDKBucketDeployment');

describe('web app deployment', () => {
  it('when the web app is built, hashed assets are uploaded as immutable and never pruned', () => {
    const [, assets] = deployments().find(([id]) => id.includes('DeployAssets'))!;
    expect(assets.Properties.DestinationBucketKeyPrefix).toBe('assets/');
    expect(assets.Properties.Prune).toBe(false);
    expect(assets.Properties.SystemMetadata).toEqual({ 'cache-control': 'public, max-age=31536000, immutable' });
  });

  it('when the web app is built, index.html and config.json are revalidated on every load and CloudFront is invalidated', () => {
    const [, site] = deployments().find(([id]) => id.includes('DeploySite'))!;
    expect(site.Properties.SystemMetadata).toEqual({ 'cache-control': 'no-cache' });
    expect(site.Properties.Prune).toBe(true);
    expect(site.Properties.Exclude).toEqual(['assets/*']);
    expect(site.Properties.DistributionPaths).toEqual(['/*']);
    // The built page, config.json, robots.txt and the sitemap.
    expect(site.Properties.SourceObjectKeys).toHaveLength(4);
  });

  it('when the web app is built, a real robots.txt and a sitemap of the public pages go out with it, naming the site address', () => {
    const [, site] = deployments().find(([id]) => id.includes('DeploySite'))!;
    const markers = JSON.stringify(site.Properties.SourceMarkers ?? []);
    // The site address is the distribution's, known at deploy: it reaches both files as a marker.
    expect(markers).toContain('DomainName');
  });

  it('when the new index.html goes out, the chunks it names are already there', () => {
    const [assetsId] = deployments().find(([id]) => id.includes('DeployAssets'))!;
    const [, site] = deployments().find(([id]) => id.includes('DeploySite'))!;
    expect(JSON.stringify(site.DependsOn ?? [])).toContain(assetsId.replace(/CustomResource.*$/, ''));
  });
});
