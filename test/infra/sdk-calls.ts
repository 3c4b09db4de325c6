import { readFileSync } from 'node:fs';
import { build, type Plugin } from 'esbuild';
import { fromRoot } from '#infra/paths';

/**
 * What a Lambda bundle can ask of AWS, read from the code: the SDK commands its
 * entry reaches (esbuild's tree-shaking keeps only the code a handler can run),
 * plus those of the adapters behind each port it calls. The composition
 * (composition/server.ts) binds every adapter for every entry, so it is replaced
 * by a stub here, and each port call is followed to the AWS adapter that serves
 * it on Lambda instead: otherwise every function would seem to send everything.
 */

/** One call a function's role must allow: an IAM action on a resource. */
export interface AwsCall {
  action: string;
  /**
   * The resource: `env:NAME` is whatever the function's environment variable NAME
   * points at in the template (a table, a bucket, a queue, a function); any other
   * text is a fragment the statement's resource must contain ('*' for none).
   */
  resource: string;
  /** Where it comes from, for the failure message. */
  from: string;
}

/** The bucket a call names, by the setting it reads. */
const BUCKETS = ['UPLOADS_BUCKET', 'OUTPUTS_BUCKET'];

/**
 * SDK commands and helpers to the IAM actions they need (each service's authorization reference).
 * HeadObject is authorised as GetObject, ListObjectsV2 and HeadBucket as ListBucket; a transaction
 * needs the action of each item it may hold; a multipart upload (lib-storage's Upload) puts parts
 * and aborts them when it fails.
 */
const ACTIONS: Record<string, string[]> = {
  GetCommand: ['dynamodb:GetItem'],
  PutCommand: ['dynamodb:PutItem'],
  UpdateCommand: ['dynamodb:UpdateItem'],
  DeleteCommand: ['dynamodb:DeleteItem'],
  QueryCommand: ['dynamodb:Query'],
  ScanCommand: ['dynamodb:Scan'],
  BatchWriteCommand: ['dynamodb:BatchWriteItem'],
  BatchGetCommand: ['dynamodb:BatchGetItem'],
  TransactWriteCommand: ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:ConditionCheckItem'],
  TransactGetCommand: ['dynamodb:GetItem'],
  DescribeTableCommand: ['dynamodb:DescribeTable'],
  GetObjectCommand: ['s3:GetObject'],
  HeadObjectCommand: ['s3:GetObject'],
  PutObjectCommand: ['s3:PutObject'],
  // A copy reads its source and writes its target (here the same bucket).
  CopyObjectCommand: ['s3:GetObject', 's3:PutObject'],
  DeleteObjectCommand: ['s3:DeleteObject'],
  DeleteObjectsCommand: ['s3:DeleteObject'],
  ListObjectsV2Command: ['s3:ListBucket'],
  HeadBucketCommand: ['s3:ListBucket'],
  Upload: ['s3:PutObject', 's3:AbortMultipartUpload'],
  createPresignedPost: ['s3:PutObject'],
  SubmitJobCommand: ['batch:SubmitJob'],
  TerminateJobCommand: ['batch:TerminateJob'],
  DescribeJobsCommand: ['batch:DescribeJobs'],
  InvokeCommand: ['lambda:InvokeFunction'],
  SendEmailCommand: ['ses:SendEmail'],
  GetSecretValueCommand: ['secretsmanager:GetSecretValue'],
};

/** Which setting names the resource of a call to each service, when the call's own text does not. */
const SERVICE_RESOURCE: Record<string, string> = {
  dynamodb: 'env:TABLE_NAME',
  secretsmanager: 'env:STRIPE_SECRET_ARN',
  ses: ':identity/',
  // DescribeJobs has no resource-level permission; TerminateJob names jobs made at submit.
  'batch:DescribeJobs': '*',
  'batch:TerminateJob': ':job/',
};

/** Finds the text of a call's arguments: from the opening parenthesis to its match. */
function argumentsAt(code: string, open: number): string {
  let depth = 0;
  for (let i = open; i < code.length; i += 1) {
    if (code[i] === '(') depth += 1;
    else if (code[i] === ')' && --depth === 0) return code.slice(open, i + 1);
  }
  return code.slice(open);
}

/** Where the top-level declaration holding a position starts: the last line before it that begins in the first column. */
function declarationStart(code: string, position: number): number {
  for (let line = code.lastIndexOf('\n', position - 1); line >= 0; line = code.lastIndexOf('\n', line - 1)) {
    if (/\S/.test(code[line + 1] ?? '')) return line + 1;
  }
  return 0;
}

/**
 * The calls written in a piece of bundled code. `invokes` names the setting of the function an
 * InvokeCommand reaches (the adapter's), `buckets` the buckets a call that names none reaches.
 */
export function callsIn(code: string, from: string, context: { invokes?: string; buckets?: string[] } = {}): AwsCall[] {
  const calls: AwsCall[] = [];
  // esbuild renames an import that collides with another (GetObjectCommand2): the digits go.
  for (const match of code.matchAll(/\b(?:new\s+)?([A-Z]\w*?Command|Upload|createPresignedPost)\d*\(/g)) {
    const name = match[1];
    if (!match[0].startsWith('new') && name !== 'createPresignedPost') continue;
    const actions = ACTIONS[name];
    // A command the table does not know would be a call no grant is checked for: the test stops instead.
    if (!actions) throw new Error(`${from}: ${name} is sent, and the grant test does not know its IAM actions: add it to ACTIONS in test/infra/sdk-calls.ts`);
    const args = argumentsAt(code, match.index! + match[0].length - 1);
    // A bucket named before the call (const bucket = getConfig().UPLOADS_BUCKET): the enclosing top-level
    // declaration, which esbuild starts at the line's first column, up to the call.
    const declaration = code.slice(declarationStart(code, match.index!), match.index! + match[0].length - 1 + args.length);
    for (const action of actions) {
      const service = action.split(':')[0];
      let resources: string[];
      if (service === 's3') {
        const inArgs = BUCKETS.filter((bucket) => args.includes(bucket));
        const named = inArgs.length > 0 ? inArgs : BUCKETS.filter((bucket) => declaration.includes(bucket));
        resources = (named.length > 0 ? named : (context.buckets ?? [])).map((bucket) => `env:${bucket}`);
        if (resources.length === 0) throw new Error(`${from}: ${name} names no bucket the test knows (${args.slice(0, 120)})`);
      } else if (action === 'lambda:InvokeFunction') {
        if (!context.invokes) throw new Error(`${from}: an InvokeCommand whose function the test does not know`);
        resources = [`env:${context.invokes}`];
      } else if (action === 'batch:SubmitJob') {
        resources = ['env:RENDER_JOB_QUEUE', 'env:RENDER_JOB_DEFINITION', 'env:FINISH_JOB_DEFINITION'];
      } else {
        resources = [SERVICE_RESOURCE[action] ?? SERVICE_RESOURCE[service] ?? '*'];
      }
      for (const resource of resources) calls.push({ action, resource, from: `${from} (${name})` });
    }
    // Tags given at create are authorised as batch:TagResource on the job being made (AWS Batch user guide, "Tag your resources").
    if (name === 'SubmitJobCommand' && /\btags\s*:/.test(args)) calls.push({ action: 'batch:TagResource', resource: ':job/', from: `${from} (SubmitJobCommand with tags)` });
  }
  return calls;
}

const compositionExports = (): string[] =>
  [...readFileSync(fromRoot('composition/server.ts'), 'utf8').matchAll(/^export (?:async )?(?:function|const) (\w+)/gm)].map((match) => match[1]);

/**
 * Bundles a module as the Lambda bundle would (esbuild, ESM, tree-shaken), without npm
 * packages (the SDK's own code sends what it is told) and with the composition stubbed:
 * each of its exports marks its use as `__composition("name")`.
 */
export async function bundleOf(entry: { file: string } | { contents: string }): Promise<string> {
  const stub: Plugin = {
    name: 'composition-stub',
    setup(plugin) {
      plugin.onResolve({ filter: /^#composition\/server$/ }, () => ({ path: 'composition', namespace: 'stub' }));
      plugin.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
        contents: compositionExports().map((name) => `export function ${name}() { return __composition(${JSON.stringify(name)}); }`).join('\n'),
        loader: 'js',
      }));
      // npm packages stay out of the bundle: only our code decides what is sent.
      plugin.onResolve({ filter: /^(@[\w.-]+\/)?[a-zA-Z][\w.-]*(\/.*)?$/ }, (args) => (args.kind === 'entry-point' ? undefined : { path: args.path, external: true }));
    },
  };
  const result = await build({
    ...('file' in entry ? { entryPoints: [fromRoot(entry.file)] } : { stdin: { contents: entry.contents, resolveDir: fromRoot('.'), loader: 'ts' } }),
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'node',
    target: 'node24',
    treeShaking: true,
    minify: false,
    logLevel: 'silent',
    plugins: [stub],
  });
  return result.outputFiles[0].text;
}

/** A port's AWS adapter: the export that serves it on Lambda, and which of the adapter's methods each use of the port reaches. */
interface PortAdapter {
  module: string;
  exports: string[];
  invokes?: string;
  buckets?: string[];
}

/** How composition/server.ts binds each port on Lambda (MAIL_MODE ses, PAYMENTS_MODE stripe, the functions' settings set). */
const PORT_ADAPTERS: Record<string, PortAdapter[]> = {
  mailer: [{ module: '#adapters/mailer', exports: ['sesMailer'] }],
  payments: [{ module: '#adapters/stripe', exports: ['stripePayments'] }],
  mediaDuration: [{ module: '#adapters/media-probe', exports: ['functionMediaProbe'], invokes: 'MEDIA_PROBE_FUNCTION' }],
  previewer: [{ module: '#adapters/preview-function', exports: ['functionPreviewer'], invokes: 'PREVIEW_FUNCTION' }],
  healthProbes: [{ module: '#adapters/health-probes', exports: ['tableProbe', 'bucketsProbe'], buckets: BUCKETS }],
  // The render worker's port (core/jobs/render-tasks.ts, renderTasks()), which composition binds beside the others.
  renderTasks: [{ module: '#adapters/worker-credentials', exports: ['workerTaskBroker'], invokes: 'WORKER_SESSION_FUNCTION' }],
};

/**
 * The table's and the buckets' ports (core/ports.ts, Table and Bucket), method by method: the core asks them as
 * `ports().table().get(...)`, and each method of the adapter's class sends its own commands (its source is read per
 * method). The two buckets share one adapter; the port asked names the bucket.
 */
const STORE_PORTS: Record<string, { file: string; buckets?: string[] }> = {
  table: { file: 'adapters/dynamodb-table.ts' },
  uploads: { file: 'adapters/s3-bucket.ts', buckets: ['UPLOADS_BUCKET'] },
  outputs: { file: 'adapters/s3-bucket.ts', buckets: ['OUTPUTS_BUCKET'] },
};

/** The farm port's engines on AWS, method by method (a class keeps every method, so its source is read per method). */
const FARM_ADAPTERS: { file: string; invokes?: string }[] = [{ file: 'adapters/batch-farm.ts' }, { file: 'adapters/function-farm.ts', invokes: 'RENDER_FUNCTION_NAME' }];
const FARM_METHODS = ['submit', 'isWaiting', 'cancel'];

/** Composition exports that reach AWS themselves: the session broker takes the worker scope role. */
const COMPOSITION_CALLS: Record<string, AwsCall[]> = {
  scopeIssuer: [
    { action: 'sts:AssumeRole', resource: 'env:WORKER_SCOPE_ROLE_ARN', from: 'composition scopeIssuer (adapters/worker-credentials.ts stsScopeIssuer)' },
    { action: 'sts:TagSession', resource: 'env:WORKER_SCOPE_ROLE_ARN', from: 'composition scopeIssuer (session tags jobId, userId)' },
  ],
};

/** The methods of a class in a source file, each with its body's text (up to the next method at the same indentation). */
function methodsOf(source: string): Map<string, string> {
  const methods = new Map<string, string>();
  const headers = [...source.matchAll(/^ {2}(?:(?:private|readonly|async|static) )*(\w+)\s*\(/gm)];
  headers.forEach((header, i) => methods.set(header[1], source.slice(header.index, headers[i + 1]?.index ?? source.length)));
  return methods;
}

/** Every AWS call a Lambda entry file can make with its own role. */
export async function callsOfEntry(entry: string): Promise<AwsCall[]> {
  const code = await bundleOf({ file: entry });
  const calls = callsIn(code, entry);
  const used = new Set([...code.matchAll(/\bports\d*\(\)\s*\.(\w+)\(/g)].map((match) => match[1]));
  if (/\brenderTasks\d*\(\)\s*\./.test(code)) used.add('renderTasks');
  for (const port of used) {
    for (const adapter of PORT_ADAPTERS[port] ?? []) {
      const adapterCode = await bundleOf({ contents: `export { ${adapter.exports.join(', ')} } from '${adapter.module}';` });
      calls.push(...callsIn(adapterCode, `${entry} -> ports().${port} -> ${adapter.module}`, adapter));
    }
  }
  for (const [port, adapter] of Object.entries(STORE_PORTS)) {
    if (!used.has(port)) continue;
    const asked = [...code.matchAll(new RegExp(`\\bports\\d*\\(\\)\\s*\\.${port}\\(\\)\\s*\\.(\\w+)\\(`, 'g'))].map((match) => match[1]);
    // A port kept in a variable would hide the methods asked of it: the reading stops instead.
    const reached = [...code.matchAll(new RegExp(`\\bports\\d*\\(\\)\\s*\\.${port}\\(`, 'g'))].length;
    if (asked.length !== reached) throw new Error(`${entry} keeps ports().${port}() instead of asking a method of it at once: the grant test cannot tell which it asks`);
    const bodies = methodsOf(readFileSync(fromRoot(adapter.file), 'utf8'));
    for (const method of new Set(asked)) {
      const body = bodies.get(method);
      if (body === undefined) throw new Error(`${entry} asks ports().${port}().${method}, which ${adapter.file} has no method for`);
      calls.push(...callsIn(body, `${entry} -> ports().${port}().${method} -> ${adapter.file}`, adapter));
    }
  }
  if (used.has('farm')) {
    const methods = FARM_METHODS.filter((method) => new RegExp(`\\.${method}\\(`).test(code));
    for (const farm of FARM_ADAPTERS) {
      const bodies = methodsOf(readFileSync(fromRoot(farm.file), 'utf8'));
      for (const method of methods) calls.push(...callsIn(bodies.get(method) ?? '', `${entry} -> farm.${method} -> ${farm.file}`, farm));
    }
  }
  for (const [, name] of code.matchAll(/__composition\("(\w+)"\)/g)) {
    if (name === 'composeServer') continue;
    const reached = COMPOSITION_CALLS[name];
    if (!reached) throw new Error(`${entry} uses the composition's ${name}, whose AWS calls the grant test does not know: add it to COMPOSITION_CALLS`);
    calls.push(...reached.map((call) => ({ ...call, from: `${entry} -> ${call.from}` })));
  }
  // The SDK's paginators send commands the reading above does not see.
  if (/\bpaginate\w+\(/.test(code)) throw new Error(`${entry} uses an SDK paginator, whose commands the grant test does not read`);
  const unknownPorts = [...used].filter((port) => !(port in PORT_ADAPTERS) && !['farm', ...Object.keys(STORE_PORTS)].includes(port));
  if (unknownPorts.length > 0) throw new Error(`${entry} uses ports the grant test does not follow: ${unknownPorts.join(', ')}`);
  return calls;
}
