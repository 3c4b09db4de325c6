import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The boundaries `npm run lint` enforces, proved on a small house of their own: the
 * project's own .oxlintrc.json, beside files that break one boundary each
 * (`npm run lint:check-rules` runs this file alone).
 */
const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
let house: string;

const files: Record<string, string> = {
  'core/config.ts': 'export const getConfig = () => ({});\n',
  'core/ports.ts': 'export const ports = () => ({});\n',
  'core/jobs/launch.ts': "import { ports } from '../ports';\nexport const launch = () => ports();\n",
  'lambdas/routes.ts': 'export const routes = [];\n',
  'adapters/fine.ts': "import { readFile } from 'node:fs/promises';\nexport const read = readFile;\n",
  'adapters/reaches-core.ts': "import { getConfig } from '../core/config';\nexport const settings = getConfig;\n",
  'core/reaches-lambdas.ts': "import { routes } from '../lambdas/routes';\nexport const all = routes;\n",
  'core/reaches-adapter.ts': "import { read } from '../adapters/fine';\nexport const reader = read;\n",
  'shared/reaches-core.ts': "import { getConfig } from '../core/config';\nexport const settings = getConfig;\n",
  'shared/reaches-adapter.ts': "import { read } from '../adapters/fine';\nexport const reader = read;\n",
  'observability/fine.ts': "import { createHash } from 'node:crypto';\nimport { log } from './sibling';\nexport const hash = createHash;\nexport const write = log;\n",
  'observability/sibling.ts': 'export const log = () => undefined;\n',
  'observability/reaches-core.ts': "import { getConfig } from '../core/config';\nexport const settings = getConfig;\n",
  'core/cycle-a.ts': "import { b } from './cycle-b';\nexport const a = () => b;\n",
  'core/cycle-b.ts': "import { a } from './cycle-a';\nexport const b = () => a;\n",
};

beforeAll(() => {
  house = mkdtempSync(join(tmpdir(), 'lint-rules-'));
  const config = readFileSync(join(root, '.oxlintrc.json'), 'utf8').replace(/^\s*"\$schema".*\n/m, '');
  writeFileSync(join(house, '.oxlintrc.json'), config);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(house, path)), { recursive: true });
    writeFileSync(join(house, path), text);
  }
});

afterAll(() => rmSync(house, { recursive: true, force: true }));

/** The rules that fail on a file, as oxlint names them. */
async function findings(path: string): Promise<string[]> {
  const oxlint = join(root, 'node_modules', '.bin', 'oxlint');
  const result = await run(oxlint, ['-c', '.oxlintrc.json', '-f', 'unix', path], { cwd: house }).then(
    ({ stdout }) => stdout,
    (error: { stdout?: string; code?: number }) => {
      if (error.code !== 1) throw error;
      return error.stdout ?? '';
    },
  );
  return [...result.matchAll(/^[^:\n]+:\d+:\d+: .*\[Error\/([^\]]+)\]$/gm)].map((match) => match[1]);
}

describe('the import boundaries', () => {
  it('when a file keeps to the arrows, it passes', async () => {
    expect(await findings('adapters/fine.ts')).toEqual([]);
    expect(await findings('core/jobs/launch.ts')).toEqual([]);
  });

  it('when an adapter imports the core, the lint fails', async () => {
    expect(await findings('adapters/reaches-core.ts')).toEqual(['eslint(no-restricted-imports)']);
  });

  it('when the core imports an HTTP handler or an adapter, the lint fails', async () => {
    expect(await findings('core/reaches-lambdas.ts')).toEqual(['eslint(no-restricted-imports)']);
    expect(await findings('core/reaches-adapter.ts')).toEqual(['eslint(no-restricted-imports)']);
  });

  it('when shared/ imports anything of the server, the lint fails', async () => {
    expect(await findings('shared/reaches-core.ts')).toEqual(['eslint(no-restricted-imports)']);
    expect(await findings('shared/reaches-adapter.ts')).toEqual(['eslint(no-restricted-imports)']);
  });

  it('when the logger, metrics or tracer module imports anything of the project, the lint fails (every layer uses them)', async () => {
    expect(await findings('observability/fine.ts')).toEqual([]);
    expect(await findings('observability/reaches-core.ts')).toEqual(['eslint(no-restricted-imports)']);
  });

  it('when two files import each other, the lint fails', async () => {
    expect(await findings('core/cycle-a.ts')).toContain('import(no-cycle)');
  });
});
