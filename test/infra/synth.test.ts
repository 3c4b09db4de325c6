import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '#infra/paths';

/**
 * The real thing: `npx cdk synth` with the pinned CLI, esbuild bundling every
 * function, offline and without AWS credentials. Slower than the assertion tests,
 * hence its own file and a generous timeout.
 */
const outdir = mkdtempSync(join(tmpdir(), 'cloud-render-synth-'));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

/** The environment minus anything that could reach an AWS account. */
function offlineEnvironment(): NodeJS.ProcessEnv {
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('AWS_') && !name.startsWith('CDK_')));
  return {
    ...env,
    AWS_EC2_METADATA_DISABLED: 'true',
    AWS_CONFIG_FILE: join(outdir, 'no-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(outdir, 'no-credentials'),
    CI: 'true',
  };
}

describe('cdk synth', () => {
  it(
    'when `npx cdk synth --quiet` runs offline with no AWS credentials, it succeeds and bundles every function',
    () => {
      const started = Date.now();
      const result = spawnSync('npx', ['cdk', 'synth', '--quiet', '--lookups=false', '--no-notices', '--no-version-reporting', '--output', outdir], {
        cwd: repoRoot,
        env: offlineEnvironment(),
        encoding: 'utf8',
        timeout: 350_000,
      });
      expect(result.status, `${result.stdout}\n${result.stderr}`).toBe(0);
      const template = JSON.parse(readFileSync(join(outdir, 'cloud-render-prod.template.json'), 'utf8'));
      const assets = JSON.parse(readFileSync(join(outdir, 'cloud-render-prod.assets.json'), 'utf8'));
      // Each product function's bundle is a minified ES module with its source map.
      const functions = Object.values(template.Resources as Record<string, { Type: string; Properties: { Description?: unknown; Code: { S3Key: string } } }>)
        .filter((resource) => resource.Type === 'AWS::Lambda::Function' && String(resource.Properties.Description).startsWith('lambdas/'));
      expect(functions).toHaveLength(14);
      for (const fn of functions) {
        const hash = fn.Properties.Code.S3Key.replace(/\.zip$/, '');
        const directory = join(outdir, assets.files[hash].source.path);
        expect(readdirSync(directory).sort(), String(fn.Properties.Description)).toEqual(['index.mjs', 'index.mjs.map']);
      }
      expect(existsSync(join(outdir, 'manifest.json'))).toBe(true);
      console.info(`cdk synth took ${((Date.now() - started) / 1000).toFixed(1)} s`);
    },
    360_000,
  );
});
