/**
 * The home route's initial JavaScript, gzipped: the budget is 100 KB.
 * Builds the SPA with web/vite.config.ts into a temporary folder, follows the entry
 * chunk's static imports in Vite's manifest (what the browser loads before the home
 * page can render), and prints their gzipped size. Lazy chunks (customise, job
 * history, account, Stripe, admin/recharts, zod, TanStack Query) are listed separately.
 *
 *   npx tsx bench/web-bundle.ts
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'vite';

const BUDGET_KB = 100;

interface ManifestChunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}

const outDir = mkdtempSync(join(tmpdir(), 'web-bundle-'));
try {
  await build({
    configFile: resolve('web/vite.config.ts'),
    logLevel: 'warn',
    build: { outDir, manifest: true, sourcemap: false, emptyOutDir: true },
  });
  const manifest = JSON.parse(readFileSync(join(outDir, '.vite/manifest.json'), 'utf8')) as Record<string, ManifestChunk>;
  const gzipKb = (file: string) => gzipSync(readFileSync(join(outDir, file)), { level: 9 }).length / 1024;

  const entryKey = Object.keys(manifest).find((key) => manifest[key].isEntry);
  if (!entryKey) throw new Error('No entry chunk in the manifest');
  const initial = new Set<string>();
  const visit = (key: string) => {
    if (initial.has(key)) return;
    initial.add(key);
    for (const dependency of manifest[key].imports ?? []) visit(dependency);
  };
  visit(entryKey);

  const rows = [...initial].map((key) => ({ file: manifest[key].file, kb: gzipKb(manifest[key].file) }));
  const totalKb = rows.reduce((sum, row) => sum + row.kb, 0);
  const css = [...new Set([...initial].flatMap((key) => manifest[key].css ?? []))];
  const cssKb = css.reduce((sum, file) => sum + gzipKb(file), 0);

  console.log('Home route, initial JavaScript (gzip -9):');
  for (const row of rows.sort((a, b) => b.kb - a.kb)) console.log(`  ${row.kb.toFixed(1).padStart(7)} KB  ${row.file}`);
  console.log(`  ${totalKb.toFixed(1).padStart(7)} KB  total (budget ${BUDGET_KB} KB)`);
  console.log(`  ${cssKb.toFixed(1).padStart(7)} KB  CSS (${css.join(', ')})`);

  const lazy = Object.values(manifest).filter((chunk) => chunk.isDynamicEntry && chunk.file.endsWith('.js'));
  console.log('\nLazy route chunks (gzip -9), loaded on demand:');
  for (const chunk of lazy.sort((a, b) => (a.src ?? '').localeCompare(b.src ?? ''))) console.log(`  ${gzipKb(chunk.file).toFixed(1).padStart(7)} KB  ${chunk.src ?? chunk.file}`);

  const within = totalKb <= BUDGET_KB;
  console.log(`\nweb-bundle: home initial JS ${totalKb.toFixed(1)} KB gzipped — ${within ? 'within' : 'OVER'} the ${BUDGET_KB} KB budget`);
  if (!within) process.exitCode = 1;
} finally {
  rmSync(outDir, { recursive: true, force: true });
}
