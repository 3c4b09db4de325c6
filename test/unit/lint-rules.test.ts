import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';

/**
 * The boundaries `npm run lint` enforces, proved on a small house of their own: the
 * project's own .oxlintrc.json (and its plugin, oxlint-plugin.js) and package.json's
 * subpath imports, beside files that break one boundary each, written both ways (the
 * `#folder/` import, and the relative path the boundaries also refuse), and files that
 * keep to it (`npm run lint:check-rules` runs this file alone). Then the file-name rule,
 * over the repository's own folders.
 */
const run = promisify(execFile);
const root = join(import.meta.dirname, '..', '..');
let house: string;

const files: Record<string, string> = {
  'core/config.ts': 'export const getConfig = () => ({});\n',
  'core/ports.ts': "import type { S3Client } from '@aws-sdk/client-s3';\nexport type StorageClient = S3Client;\nexport const ports = () => ({});\n",
  'core/jobs/launch.ts': "import { ports } from '../ports';\nexport const launch = () => ports();\n",
  'lambdas/routes.ts': 'export const routes = [];\n',
  'adapters/fine.ts': "import { readFile } from 'node:fs/promises';\nexport const read = readFile;\n",
  'adapters/reaches-core.ts': "import { getConfig } from '../core/config';\nexport const settings = getConfig;\n",
  'adapters/reaches-composition.ts': "import { composeServer } from '../composition/fine';\nexport const compose = composeServer;\n",
  'adapters/reaches-render.ts': "import { runProbe } from '../render/fine';\nexport const probe = runProbe;\n",
  'core/reaches-render.ts': "import { runProbe } from '../render/fine';\nexport const probe = runProbe;\n",
  'core/reaches-lambdas.ts': "import { routes } from '../lambdas/routes';\nexport const all = routes;\n",
  'core/reaches-adapter.ts': "import { read } from '../adapters/fine';\nexport const reader = read;\n",
  'core/reaches-composition.ts': "import { composeServer } from '../composition/fine';\nexport const compose = composeServer;\n",
  // The AWS SDK in the core: a domain module (even its types), and the table's and the buckets' own folders.
  'core/jobs/reaches-sdk.ts': "import { GetCommand } from '@aws-sdk/lib-dynamodb';\nexport const get = GetCommand;\n",
  'core/jobs/sdk-types.ts': "import type { GetCommandInput } from '@aws-sdk/lib-dynamodb';\nexport type Input = GetCommandInput;\n",
  'core/db/items.ts': "import { unmarshall } from '@aws-sdk/util-dynamodb';\nexport const decode = unmarshall;\n",
  'core/db/reaches-sdk.ts': "import { GetCommand } from '@aws-sdk/lib-dynamodb';\nexport const get = GetCommand;\n",
  'core/storage/storage.ts': "import { S3Client } from '@aws-sdk/client-s3';\nimport { read } from '#adapters/fine';\nexport const client = [S3Client, read];\n",
  'shared/fine.ts': "import { z } from 'zod';\nimport { rule } from './sibling';\nexport const schema = z.string().refine(rule);\n",
  'shared/sibling.ts': 'export const rule = (text: string) => text.length > 0;\n',
  'shared/reaches-core.ts': "import { getConfig } from '../core/config';\nexport const settings = getConfig;\n",
  'shared/reaches-adapter.ts': "import { read } from '../adapters/fine';\nexport const reader = read;\n",
  'client/fine.ts': "import createClient from 'openapi-fetch';\nimport type { paths } from './schema';\nexport const client = createClient<paths>();\n",
  'client/reaches-shared.ts': "import { rule } from '../shared/sibling';\nexport const check = rule;\n",
  'observability/fine.ts': "import { createHash } from 'node:crypto';\nimport { log } from './sibling';\nexport const hash = createHash;\nexport const write = log;\n",
  'observability/sibling.ts': 'export const log = () => undefined;\n',
  'observability/reaches-core.ts': "import { getConfig } from '../core/config';\nexport const settings = getConfig;\n",
  'composition/fine.ts': "import { ports } from '#core/ports';\nimport { read } from '#adapters/fine';\nimport { findBlender } from '#render/blender-install';\nexport const composeServer = () => [ports, read, findBlender];\n",
  'composition/reaches-lambdas.ts': "import { routes } from '../lambdas/routes';\nexport const all = routes;\n",
  'composition/reaches-render.ts': "import { runProbe } from '../render/fine';\nexport const probe = runProbe;\n",
  'lambdas/handlers/fine.ts': "import { launch } from '#core/jobs/launch';\nimport { composeServer } from '#composition/fine';\nexport const handler = [launch, composeServer];\n",
  'lambdas/handlers/reaches-adapter.ts': "import { read } from '../../adapters/fine';\nexport const reader = read;\n",
  'lambdas/handlers/reaches-render.ts': "import { runProbe } from '../../render/fine';\nexport const probe = runProbe;\n",
  'lambdas/handlers/reaches-sdk.ts': "import { S3Client } from '@aws-sdk/client-s3';\nexport const client = S3Client;\n",
  'render/blender-install.ts': 'export const findBlender = () => undefined;\n',
  'render/fine.ts': "import { launch } from '#core/jobs/launch';\nimport { composeServer } from '#composition/fine';\nexport const runProbe = () => [launch, composeServer];\n",
  'render/reaches-adapter.ts': "import { read } from '../adapters/fine';\nexport const reader = read;\n",
  'render/reaches-lambdas.ts': "import { routes } from '../lambdas/routes';\nexport const all = routes;\n",
  'infra/local/fine.ts': "import { routes } from '#lambdas/routes';\nimport { composeServer } from '#composition/fine';\nexport const api = [routes, composeServer];\n",
  'infra/local/reaches-handler.ts': "import { handler } from '../../lambdas/handlers/fine';\nexport const h = handler;\n",
  'web/src/lib/api.ts': 'export class ApiError extends Error {}\nexport const api = { me: async () => ({}) };\n',
  'web/src/data/profile.ts': "import { api } from '../lib/api';\nexport const profile = () => api.me();\n",
  'web/src/pages/Fine.tsx': "import { rule } from '#shared/sibling';\nimport { profile } from '../data/profile';\nimport { ApiError } from '../lib/api';\nexport const Fine = () => [rule, profile, ApiError];\n",
  'web/src/pages/Fine.test.tsx': "import { api } from '../lib/api';\nexport const mocked = api;\n",
  'web/src/pages/CallsServer.tsx': "import { api } from '../lib/api';\nexport const CallsServer = () => api.me();\n",
  'web/src/pages/ReachesCore.tsx': "import { getConfig } from '../../../core/config';\nexport const ReachesCore = getConfig;\n",
  'web/src/pages/ReachesNode.tsx': "import { readFile } from 'node:fs';\nexport const ReachesNode = readFile;\n",
  'web/first-paint.ts': "import { readFileSync } from 'node:fs';\nexport const read = readFileSync;\n",
  'web/vite.config.ts': "import { fileURLToPath } from 'node:url';\nexport const path = fileURLToPath;\n",
  'web/scripts/reaches-core.ts': "import { getConfig } from '../../core/config';\nexport const settings = getConfig;\n",
  'core/cycle-a.ts': "import { b } from './cycle-b';\nexport const a = () => b;\n",
  'core/cycle-b.ts': "import { a } from './cycle-a';\nexport const b = () => a;\n",
  // A circle through subpath imports (oxlint resolves them with package.json's "imports").
  'core/cycle-c.ts': "import { d } from '#shared/cycle-d';\nexport const c = () => d;\n",
  'shared/cycle-d.ts': "import { c } from '#core/cycle-c';\nexport const d = () => c;\n",
  // Each forbidden arrow again, written as the subpath import (package.json "imports") every folder uses.
  'adapters/reaches-core-by-subpath.ts': "import { getConfig } from '#core/config';\nexport const settings = getConfig;\n",
  'adapters/reaches-composition-by-subpath.ts': "import { composeServer } from '#composition/fine';\nexport const compose = composeServer;\n",
  'adapters/reaches-render-by-subpath.ts': "import { runProbe } from '#render/fine';\nexport const probe = runProbe;\n",
  'core/reaches-render-by-subpath.ts': "import { runProbe } from '#render/fine';\nexport const probe = runProbe;\n",
  'core/reaches-lambdas-by-subpath.ts': "import { routes } from '#lambdas/routes';\nexport const all = routes;\n",
  'core/reaches-adapter-by-subpath.ts': "import { read } from '#adapters/fine';\nexport const reader = read;\n",
  'core/reaches-composition-by-subpath.ts': "import { composeServer } from '#composition/fine';\nexport const compose = composeServer;\n",
  'core/db/reaches-adapter-by-subpath.ts': "import { read } from '#adapters/fine';\nexport const reader = read;\n",
  'shared/reaches-core-by-subpath.ts': "import { getConfig } from '#core/config';\nexport const settings = getConfig;\n",
  'shared/reaches-adapter-by-subpath.ts': "import { read } from '#adapters/fine';\nexport const reader = read;\n",
  'shared/reaches-observability-by-subpath.ts': "import { log } from '#observability/sibling';\nexport const write = log;\n",
  'shared/uses-shared-by-subpath.ts': "import { rule } from '#shared/sibling';\nexport const check = rule;\n",
  'client/reaches-shared-by-subpath.ts': "import { rule } from '#shared/sibling';\nexport const check = rule;\n",
  'observability/reaches-core-by-subpath.ts': "import { getConfig } from '#core/config';\nexport const settings = getConfig;\n",
  'composition/reaches-lambdas-by-subpath.ts': "import { routes } from '#lambdas/routes';\nexport const all = routes;\n",
  'composition/reaches-render-by-subpath.ts': "import { runProbe } from '#render/fine';\nexport const probe = runProbe;\n",
  'lambdas/handlers/reaches-adapter-by-subpath.ts': "import { read } from '#adapters/fine';\nexport const reader = read;\n",
  'lambdas/handlers/reaches-render-by-subpath.ts': "import { runProbe } from '#render/fine';\nexport const probe = runProbe;\n",
  'render/reaches-adapter-by-subpath.ts': "import { read } from '#adapters/fine';\nexport const reader = read;\n",
  'render/reaches-lambdas-by-subpath.ts': "import { routes } from '#lambdas/routes';\nexport const all = routes;\n",
  'infra/local/reaches-handler-by-subpath.ts': "import { handler } from '#lambdas/handlers/fine';\nexport const h = handler;\n",
  'web/src/pages/ReachesCoreBySubpath.tsx': "import { getConfig } from '#core/config';\nexport const ReachesCore = getConfig;\n",
  'web/scripts/reaches-core-by-subpath.ts': "import { getConfig } from '#core/config';\nexport const settings = getConfig;\n",
  // Relative imports: inside their top-level folder, and out of it (every way a module is named).
  'web/scripts/inside-web.ts': "import { ApiError } from '../src/lib/api';\nexport const error = ApiError;\n",
  'web/src/pages/Climbs.tsx': "import { rule } from '../../../shared/sibling';\nexport const Climbs = rule;\n",
  'core/jobs/reaches-shared.ts': "import { rule } from '../../shared/sibling';\nexport { rule as check } from '../../shared/sibling';\nexport * from '../../shared/sibling';\nexport const load = () => [rule, import('../../shared/sibling')];\nexport type Rule = typeof import('../../shared/sibling');\n",
  'test/unit/mocks-core.test.ts': "import { vi } from 'vitest';\nvi.mock('../../core/config', async () => await vi.importActual('../../core/config'));\nexport const entry = (name: string) => import(`../../lambdas/${name}`);\n",
  // AWS SDK clients: made in adapters/clients.ts, by name or through the whole module; an adapter may use a client's type
  // and make its commands. The tests and the local stack's plumbing reach the SDK directly.
  'adapters/clients.ts': "import { LambdaClient } from '@aws-sdk/client-lambda';\nexport const createLambdaClient = () => new LambdaClient({});\n",
  'adapters/makes-client.ts': "import { LambdaClient as Lambda } from '@aws-sdk/client-lambda';\nexport const lambda = () => new Lambda({ region: 'eu-west-1' });\n",
  'adapters/uses-client.ts': "import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';\nexport const invoke = (client: LambdaClient) => client.send(new InvokeCommand({ FunctionName: 'f' }));\n",
  'core/storage/makes-client.ts': "import * as s3 from '@aws-sdk/client-s3';\nexport const client = () => new s3.S3Client({});\n",
  'render/makes-client.ts': "export const table = () => new DynamoDBDocumentClient(new DynamoDBClient({}));\nimport { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nimport { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';\n",
  'infra/local/makes-client.ts': "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nexport const local = () => new DynamoDBClient({ endpoint: 'http://127.0.0.1:8000' });\n",
  'test/integration/makes-client.test.ts': "import { DynamoDBClient } from '@aws-sdk/client-dynamodb';\nexport const local = () => new DynamoDBClient({});\n",
  'test/unit/uses-core.test.ts': "import { getConfig } from '#core/config';\nimport { vi } from 'vitest';\nvi.mock('#core/config');\nexport const entry = (name: string) => import(`#lambdas/${name}`);\nexport const settings = getConfig;\n",
};

beforeAll(() => {
  house = mkdtempSync(join(tmpdir(), 'lint-rules-'));
  const config = readFileSync(join(root, '.oxlintrc.json'), 'utf8').replace(/^\s*"\$schema".*\n/m, '');
  writeFileSync(join(house, '.oxlintrc.json'), config);
  writeFileSync(join(house, 'oxlint-plugin.js'), readFileSync(join(root, 'oxlint-plugin.js')));
  // The subpath imports, for the rules that resolve an import (the circles).
  const { type, imports } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { type: string; imports: Record<string, string> };
  writeFileSync(join(house, 'package.json'), JSON.stringify({ name: 'house', private: true, type, imports }));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(house, path)), { recursive: true });
    writeFileSync(join(house, path), text);
  }
});

afterAll(() => rmSync(house, { recursive: true, force: true }));

/** oxlint's report on the whole house, made once (one run for all the files), one line a finding: `path:line:column: message [Error/rule]`. */
let houseReport: Promise<string> | undefined;

/** oxlint's report on a file, one line a finding. */
async function report(path: string): Promise<string> {
  houseReport ??= run(join(root, 'node_modules', '.bin', 'oxlint'), ['-c', '.oxlintrc.json', '-f', 'unix', '.'], { cwd: house }).then(
    ({ stdout }) => stdout,
    (error: { stdout?: string; code?: number }) => {
      if (error.code !== 1) throw error;
      return error.stdout ?? '';
    },
  );
  return (await houseReport)
    .split('\n')
    .filter((line) => line.startsWith(`${path}:`))
    .join('\n');
}

/** The rules that fail on a file, as oxlint names them, each with the line it fails on (in the order of the lines, then of the names). */
async function findingsByLine(path: string): Promise<string[]> {
  const found = [...(await report(path)).matchAll(/^[^:\n]+:(\d+):\d+: .*\[Error\/([^\]]+)\]$/gm)].map((match) => ({ line: Number(match[1]), rule: match[2] }));
  return found.sort((a, b) => a.line - b.line || a.rule.localeCompare(b.rule)).map(({ line, rule }) => `${line}: ${rule}`);
}

/** The rules that fail on a file, as oxlint names them. */
async function findings(path: string): Promise<string[]> {
  return (await findingsByLine(path)).map((finding) => finding.replace(/^\d+: /, ''));
}

const refused = ['eslint(no-restricted-imports)'];
/** A relative import out of its top-level folder (folders/no-relative-import-across, oxlint-plugin.js). */
const across = 'folders(no-relative-import-across)';
/** A forbidden arrow written as a relative path: refused by the boundary, and as a relative import leaving its folder. */
const refusedAcross = [...refused, across];

describe('the import boundaries', () => {
  it('when a file keeps to the arrows, it passes', async () => {
    expect(await findings('adapters/fine.ts')).toEqual([]);
    expect(await findings('core/jobs/launch.ts')).toEqual([]);
  });

  it('when an adapter imports the core, the composition or an entry point, the lint fails', async () => {
    expect(await findings('adapters/reaches-core.ts')).toEqual(refusedAcross);
    expect(await findings('adapters/reaches-core-by-subpath.ts')).toEqual(refused);
    expect(await findings('adapters/reaches-composition.ts')).toEqual(refusedAcross);
    expect(await findings('adapters/reaches-composition-by-subpath.ts')).toEqual(refused);
    expect(await findings('adapters/reaches-render.ts')).toEqual(refusedAcross);
    expect(await findings('adapters/reaches-render-by-subpath.ts')).toEqual(refused);
  });

  it('when the core imports an entry point (an HTTP handler, the render worker), an adapter or the composition, the lint fails', async () => {
    expect(await findings('core/reaches-lambdas.ts')).toEqual(refusedAcross);
    expect(await findings('core/reaches-lambdas-by-subpath.ts')).toEqual(refused);
    expect(await findings('core/reaches-render.ts')).toEqual(refusedAcross);
    expect(await findings('core/reaches-render-by-subpath.ts')).toEqual(refused);
    expect(await findings('core/reaches-adapter.ts')).toEqual(refusedAcross);
    expect(await findings('core/reaches-adapter-by-subpath.ts')).toEqual(refused);
    expect(await findings('core/reaches-composition.ts')).toEqual(refusedAcross);
    expect(await findings('core/reaches-composition-by-subpath.ts')).toEqual(refused);
  });

  it('when a core module imports the AWS SDK, the lint fails, types and the ports included; core/db/items.ts passes with the stream records\' decoder alone', async () => {
    expect(await findings('core/jobs/reaches-sdk.ts')).toEqual(refused);
    expect(await findings('core/jobs/sdk-types.ts')).toEqual(refused);
    expect(await findings('core/db/items.ts')).toEqual([]);
    expect(await findings('core/db/reaches-sdk.ts')).toEqual(refused);
    expect(await findings('core/ports.ts')).toEqual(refused);
    // Storage reaches its buckets through the Bucket port: neither the SDK nor an adapter.
    expect(await findingsByLine('core/storage/storage.ts')).toEqual(['1: eslint(no-restricted-imports)', '2: eslint(no-restricted-imports)']);
    expect(await findings('core/db/reaches-adapter-by-subpath.ts')).toEqual(refused);
  });

  it('when shared/ imports anything of the server, the lint fails; zod and shared/ itself pass', async () => {
    expect(await findings('shared/fine.ts')).toEqual([]);
    expect(await findings('shared/uses-shared-by-subpath.ts')).toEqual([]);
    expect(await findings('shared/reaches-observability-by-subpath.ts')).toEqual(refused);
    expect(await findings('shared/reaches-core.ts')).toEqual(refusedAcross);
    expect(await findings('shared/reaches-core-by-subpath.ts')).toEqual(refused);
    expect(await findings('shared/reaches-adapter.ts')).toEqual(refusedAcross);
    expect(await findings('shared/reaches-adapter-by-subpath.ts')).toEqual(refused);
  });

  it('when the typed client imports anything of the repository outside client/, the lint fails', async () => {
    expect(await findings('client/fine.ts')).toEqual([]);
    expect(await findings('client/reaches-shared.ts')).toEqual(refusedAcross);
    expect(await findings('client/reaches-shared-by-subpath.ts')).toEqual(refused);
  });

  it('when the logger, metrics or tracer module imports anything of the project, the lint fails (every layer uses them)', async () => {
    expect(await findings('observability/fine.ts')).toEqual([]);
    expect(await findings('observability/reaches-core.ts')).toEqual(refusedAcross);
    expect(await findings('observability/reaches-core-by-subpath.ts')).toEqual(refused);
  });

  it('when the composition imports an entry point (a handler, the render worker), the lint fails; the core, the adapters and render/blender-install (which imports nothing of ours) pass', async () => {
    expect(await findings('composition/fine.ts')).toEqual([]);
    expect(await findings('composition/reaches-lambdas.ts')).toEqual(refusedAcross);
    expect(await findings('composition/reaches-lambdas-by-subpath.ts')).toEqual(refused);
    expect(await findings('composition/reaches-render.ts')).toEqual(refusedAcross);
    expect(await findings('composition/reaches-render-by-subpath.ts')).toEqual(refused);
  });

  it('when a handler imports an adapter, the render worker or the AWS SDK, the lint fails; the core and the composition pass', async () => {
    expect(await findings('lambdas/handlers/fine.ts')).toEqual([]);
    expect(await findings('lambdas/handlers/reaches-adapter.ts')).toEqual(refusedAcross);
    expect(await findings('lambdas/handlers/reaches-adapter-by-subpath.ts')).toEqual(refused);
    expect(await findings('lambdas/handlers/reaches-render.ts')).toEqual(refusedAcross);
    expect(await findings('lambdas/handlers/reaches-render-by-subpath.ts')).toEqual(refused);
    expect(await findings('lambdas/handlers/reaches-sdk.ts')).toEqual(refused);
  });

  it('when the render worker imports an adapter or an HTTP handler, the lint fails; the core and the composition pass', async () => {
    expect(await findings('render/fine.ts')).toEqual([]);
    expect(await findings('render/reaches-adapter.ts')).toEqual(refusedAcross);
    expect(await findings('render/reaches-adapter-by-subpath.ts')).toEqual(refused);
    expect(await findings('render/reaches-lambdas.ts')).toEqual(refusedAcross);
    expect(await findings('render/reaches-lambdas-by-subpath.ts')).toEqual(refused);
  });

  it('when the local stack imports an HTTP handler, the lint fails; the route table passes', async () => {
    expect(await findings('infra/local/fine.ts')).toEqual([]);
    expect(await findings('infra/local/reaches-handler.ts')).toEqual(refusedAcross);
    expect(await findings('infra/local/reaches-handler-by-subpath.ts')).toEqual(refused);
  });

  it('when the web app imports server code, the lint fails; its build and scripts may use Node, the browser code may not', async () => {
    expect(await findings('web/src/pages/Fine.tsx')).toEqual([]);
    expect(await findings('web/src/pages/ReachesCore.tsx')).toEqual(refusedAcross);
    expect(await findings('web/src/pages/ReachesCoreBySubpath.tsx')).toEqual(refused);
    expect(await findings('web/scripts/reaches-core.ts')).toEqual(refusedAcross);
    expect(await findings('web/scripts/reaches-core-by-subpath.ts')).toEqual(refused);
    expect(await findings('web/src/pages/ReachesNode.tsx')).toEqual(refused);
    expect(await findings('web/first-paint.ts')).toEqual(refused);
    expect(await findings('web/vite.config.ts')).toEqual([]);
  });

  it('when a page imports the HTTP client to call the server, the lint fails; the data layer, a test, and the error class pass', async () => {
    expect(await findings('web/src/pages/CallsServer.tsx')).toEqual(refused);
    expect(await findings('web/src/data/profile.ts')).toEqual([]);
    expect(await findings('web/src/pages/Fine.test.tsx')).toEqual([]);
  });

  it('when two files import each other, the lint fails; by relative paths or by subpath imports', async () => {
    expect(await findings('core/cycle-a.ts')).toContain('import(no-cycle)');
    expect(await findings('core/cycle-c.ts')).toEqual(['import(no-cycle)']);
    // shared/ importing the core is refused besides.
    expect(await findings('shared/cycle-d.ts')).toEqual(['eslint(no-restricted-imports)', 'import(no-cycle)']);
  });
});

/** An AWS SDK client made outside adapters/clients.ts (folders/no-aws-client-outside-clients, oxlint-plugin.js). */
const madeElsewhere = 'folders(no-aws-client-outside-clients)';

describe('the AWS SDK clients', () => {
  it('when adapters/clients.ts makes a client, or an adapter uses a client it was given and makes its commands, it passes', async () => {
    expect(await findings('adapters/clients.ts')).toEqual([]);
    expect(await findings('adapters/uses-client.ts')).toEqual([]);
  });

  it('when the service makes an AWS SDK client anywhere else, by its name, another name or through its module, the lint fails and names the factories', async () => {
    expect(await findingsByLine('adapters/makes-client.ts')).toEqual([`2: ${madeElsewhere}`]);
    expect(await report('adapters/makes-client.ts')).toContain("'new Lambda(...)' makes an AWS SDK client outside adapters/clients.ts: take it from a factory there");
    expect(await findingsByLine('core/storage/makes-client.ts')).toEqual(['1: eslint(no-restricted-imports)', `2: ${madeElsewhere}`]);
    // The document client too, and an import that follows its use.
    expect(await findingsByLine('render/makes-client.ts')).toEqual([`1: ${madeElsewhere}`, `1: ${madeElsewhere}`]);
  });

  it('when a test or the local stack\'s plumbing makes a client of its own, it passes', async () => {
    expect(await findings('infra/local/makes-client.ts')).toEqual([]);
    expect(await findings('test/integration/makes-client.test.ts')).toEqual([]);
  });
});

describe('the relative imports', () => {
  it('when a relative import stays inside its top-level folder, it passes (web/ is one folder)', async () => {
    expect(await findings('core/jobs/launch.ts')).toEqual([]);
    expect(await findings('web/src/data/profile.ts')).toEqual([]);
    expect(await findings('web/scripts/inside-web.ts')).toEqual([]);
  });

  it('when a relative import leaves its top-level folder, by any number of levels, the lint fails and names the subpath import to write', async () => {
    expect(await findings('web/src/pages/Climbs.tsx')).toEqual([across]);
    expect(await report('web/src/pages/Climbs.tsx')).toContain("'../../../shared/sibling' leaves web/: import another folder's module by its subpath import, '#shared/sibling'");
    // import, export ... from, export *, import(), typeof import().
    expect(await findingsByLine('core/jobs/reaches-shared.ts')).toEqual([`1: ${across}`, `2: ${across}`, `3: ${across}`, `4: ${across}`, `5: ${across}`]);
  });

  it('when a test mocks or loads a module of another folder by a relative path, the lint fails; by its subpath import, it passes', async () => {
    expect(await findingsByLine('test/unit/mocks-core.test.ts')).toEqual([`2: ${across}`, `2: ${across}`, `3: ${across}`]);
    expect(await report('test/unit/mocks-core.test.ts')).toContain("'#lambdas/${…}'");
    expect(await findings('test/unit/uses-core.test.ts')).toEqual([]);
  });
});

/**
 * The file-name rule (README, "Conventions"): kebab-case, each dot-separated part
 * (`chunk-runner.ts`, `lint-rules.test.ts`, `vite.config.ts`); the one exception is a `.tsx`
 * file under web/src/, a React component's (or its test's), which may be PascalCase
 * (`JobCard.tsx`, `JobCard.test.tsx`). Names the tools choose (README.md, Dockerfile,
 * dotfiles) are theirs. oxlint's unicorn/filename-case would say the same, but turning its
 * plugin on turns on the plugin's other correctness and suspicious rules too.
 */
const KEBAB = /^[a-z0-9]+(-[a-z0-9]+)*(\.[a-z0-9]+(-[a-z0-9]+)*)*$/;
const COMPONENT = /^[A-Z][A-Za-z0-9]*(\.[a-z0-9]+(-[a-z0-9]+)*)*\.tsx$/;
const TOOL_NAMES = new Set(['README.md', 'Dockerfile']);

/** Why a file's name breaks the rule, or undefined when it keeps to it. `path` is relative to the repository, with `/`. */
export function fileNameProblem(path: string): string | undefined {
  const name = basename(path);
  if (TOOL_NAMES.has(name) || name.startsWith('.') || KEBAB.test(name)) return undefined;
  if (path.startsWith('web/src/') && name.endsWith('.tsx')) return COMPONENT.test(name) ? undefined : 'neither kebab-case nor a PascalCase component name';
  return 'not kebab-case';
}

/** The folders whose files the rule covers, and the ones it skips: made or fetched, not written. */
const NAMED_FOLDERS = ['shared', 'client', 'core', 'adapters', 'composition', 'observability', 'lambdas', 'render', 'infra', 'web', 'test', 'bench', 'scripts', 'docs'];
const SKIPPED = new Set(['node_modules', 'dist', 'cdk.out', 'test-results']);

function filesUnder(folder: string): string[] {
  return readdirSync(join(root, folder), { withFileTypes: true }).flatMap((entry) => {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory()) return SKIPPED.has(entry.name) || entry.name.startsWith('.') ? [] : filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}

describe('the file names', () => {
  it('when a name is kebab-case, or a React component file under web/src/ is PascalCase, it passes', () => {
    for (const path of ['render/chunk-runner.ts', 'test/unit/lint-rules.test.ts', 'web/vite.config.ts', 'render/scenes/bus-stop.py', 'web/src/jobs/JobCard.tsx', 'web/src/jobs/JobCard.test.tsx', 'web/src/jobs/job-actions.tsx', 'render/Dockerfile', 'README.md']) {
      expect(fileNameProblem(path), path).toBeUndefined();
    }
  });

  it('when a name is PascalCase, camelCase or snake_case anywhere else, or a component file is named neither way, it fails', () => {
    expect(fileNameProblem('core/jobs/JobRules.ts')).toBe('not kebab-case');
    expect(fileNameProblem('web/src/jobs/JobRules.ts')).toBe('not kebab-case');
    expect(fileNameProblem('lambdas/handlers/jobHandlers.ts')).toBe('not kebab-case');
    expect(fileNameProblem('render/scenes/bus_stop.py')).toBe('not kebab-case');
    expect(fileNameProblem('web/src/analytics/useAnalyticsTracking.test.tsx')).toBe('neither kebab-case nor a PascalCase component name');
    expect(fileNameProblem('web/src/jobs/Job-card.tsx')).toBe('neither kebab-case nor a PascalCase component name');
  });

  it('when the repository is walked, every file name keeps to the rule', () => {
    const offenders = NAMED_FOLDERS.flatMap(filesUnder).flatMap((path) => {
      const problem = fileNameProblem(path);
      return problem ? [`${path}: ${problem}`] : [];
    });
    expect(offenders).toEqual([]);
  });
});
