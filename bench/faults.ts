/**
 * Benchmark: the service under AWS's own faults. Starts the local stack with
 * DynamoDB answering 5 % of calls with a throttling error and cancelling 5 % of
 * transactions for a conflict (FAULTS, adapters/aws-faults.ts: the SDK parses them
 * into its real error classes and retries them as it would on AWS), then drives
 * mixed traffic for a minute: sign-ins, job and ledger lists, test renders, credit
 * and card renders, credit purchases, and payment confirmations sent twice.
 * Prints requests, 5xx (goal <= 0.1 %), 500s (goal 0: a known fault is a 503),
 * jobs lost or duplicated (0), money invariant violations (0) and the p99 latency.
 *
 *   npm run bench:faults [-- --seconds 60] [-- --users 5] [-- --faults ddb.throttle:0.05,ddb.conflict:0.05]
 *
 * A creating request that gets a 503 is sent again once with its Idempotency-Key, as
 * the web app does, so a job whose first answer was lost is neither lost nor doubled.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { CognitoIdentityProviderClient, InitiateAuthCommand } from '@aws-sdk/client-cognito-identity-provider';
import { startLocalStack } from '#infra/local/stack';
import { ensureVerifiedUser } from '#infra/local/bootstrap';
import { resetConfig } from '#core/config';
import { resetClients } from '#composition/server';
import { ensureUser } from '#core/users/users';
import { moveCredits } from '#core/credits/credits';
import { listAllJobsOfUser } from '#core/jobs/jobs';
import { moneyViolations, readAccount } from '#test/money-invariants';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '60' },
    users: { type: 'string', default: '5' },
    faults: { type: 'string', default: 'ddb.throttle:0.05,ddb.conflict:0.05' },
  },
});
const seconds = Number(values.seconds);
// A rejection nothing awaited would stop `npm run dev` itself: counted and shown rather than ending the run.
const unhandled: unknown[] = [];
process.on('unhandledRejection', (error) => unhandled.push(error));
const userCount = Number(values.users);

// One render at a time: the benchmark is about the API and the table, not Blender's use of the cores.
process.env.LOCAL_RENDER_WORKERS = '1';
const stack = await startLocalStack({ log: (line) => console.log(line) });
const env = stack.env;
const cognito = new CognitoIdentityProviderClient({ endpoint: env.COGNITO_ENDPOINT, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });

interface BenchUser {
  userId: string;
  email: string;
  password: string;
  token: string;
  jobIds: Set<string>;
}

async function signIn(email: string, password: string): Promise<string> {
  const result = await cognito.send(new InitiateAuthCommand({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: env.USER_POOL_CLIENT_ID, AuthParameters: { USERNAME: email, PASSWORD: password } }));
  return result.AuthenticationResult!.IdToken!;
}

const users: BenchUser[] = [];
for (let i = 0; i < userCount; i++) {
  const email = `faults-${i}-${randomUUID().slice(0, 6)}@example.com`;
  const password = 'Bench-password-1';
  const userId = await ensureVerifiedUser(env.COGNITO_ENDPOINT, env.USER_POOL_ID, email, password);
  await ensureUser(userId, email);
  await moveCredits({ userId, amount: 500, type: 'bonus' });
  users.push({ userId, email, password, token: await signIn(email, password), jobIds: new Set() });
}

// From here on the API's clients (this process serves the API) meet the faults.
process.env.FAULTS = values.faults;
resetConfig();
resetClients();

interface Sample {
  route: string;
  status: number;
  ms: number;
}
const samples: Sample[] = [];

async function call(user: BenchUser, route: string, path: string, options: { method?: string; body?: unknown; key?: string } = {}): Promise<{ status: number; body: any }> {
  const started = performance.now();
  const response = await fetch(`${stack.apiUrl}${path}`, {
    method: options.method ?? (options.body !== undefined ? 'POST' : 'GET'),
    headers: { authorization: `Bearer ${user.token}`, 'content-type': 'application/json', ...(options.key ? { 'idempotency-key': options.key } : {}) },
    body: options.body !== undefined ? JSON.stringify(options.body) : undefined,
  });
  const text = await response.text();
  samples.push({ route, status: response.status, ms: performance.now() - started });
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // not JSON
  }
  return { status: response.status, body };
}

/** A creating request, sent again once with the same key when the first answer was a 503. */
async function create(user: BenchUser, route: string, path: string, body: unknown): Promise<{ status: number; body: any }> {
  const key = randomUUID();
  const first = await call(user, route, path, { body, key });
  return first.status === 503 ? call(user, `${route} (retry)`, path, { body, key }) : first;
}

const still = (paymentMethod: 'credits' | 'card', isTest = false) => ({ sceneId: 1, mode: 'still', resolutionX: 128, resolutionY: 128, customText: 'Hi', options: '', isTest, paymentMethod });

async function startJob(user: BenchUser, route: string, body: unknown): Promise<any> {
  const answer = await create(user, route, '/api/jobs', body);
  if (answer.status === 200) user.jobIds.add(answer.body.job.jobId);
  return answer;
}

/** Confirms a payment with the local provider's test card, then sends the same confirmation again (a replay). */
async function payTwice(user: BenchUser, paymentId: string) {
  for (const route of ['confirm payment', 'confirm payment (replay)']) await call(user, route, '/api/payments/local/confirm', { body: { paymentId, cardNumber: '4242 4242 4242 4242' } });
}

const actions: [number, (user: BenchUser) => Promise<unknown>][] = [
  [15, async (user) => {
    const started = performance.now();
    user.token = await signIn(user.email, user.password);
    samples.push({ route: 'sign in (cognito-local)', status: 200, ms: performance.now() - started });
    await call(user, 'GET /api/me', '/api/me');
  }],
  [25, (user) => call(user, 'GET /api/jobs', '/api/jobs')],
  [15, (user) => call(user, 'GET /api/credits/history', '/api/credits/history')],
  [10, (user) => startJob(user, 'test render', still('credits', true))],
  [15, (user) => startJob(user, 'credit render', still('credits'))],
  [10, async (user) => {
    const answer = await startJob(user, 'card render', still('card'));
    if (answer.status === 200 && answer.body.payment) await payTwice(user, answer.body.payment.paymentId);
  }],
  [10, async (user) => {
    const answer = await create(user, 'buy credits', '/api/credits/purchases', { credits: 5 });
    if (answer.status === 200) await payTwice(user, answer.body.payment.paymentId);
  }],
];
const totalWeight = actions.reduce((sum, [weight]) => sum + weight, 0);
const pickAction = () => {
  let roll = Math.random() * totalWeight;
  for (const [weight, action] of actions) if ((roll -= weight) < 0) return action;
  return actions[0][1];
};

console.log(`\nDriving mixed traffic for ${seconds} s with ${userCount} users; FAULTS=${values.faults}`);
const until = Date.now() + seconds * 1000;
await Promise.all(
  users.map(async (user) => {
    while (Date.now() < until) await pickAction()(user);
  }),
);

// The checks read the table without faults.
delete process.env.FAULTS;
resetConfig();
resetClients();
let lost = 0;
let duplicated = 0;
let violations: string[] = [];
for (const user of users) {
  const stored = new Set((await listAllJobsOfUser(user.userId)).map((job) => job.jobId));
  lost += [...user.jobIds].filter((jobId) => !stored.has(jobId)).length;
  duplicated += [...stored].filter((jobId) => !user.jobIds.has(jobId)).length;
  violations = violations.concat(moneyViolations(await readAccount(user.userId)));
}
await stack.stop();

const api = samples.filter((s) => !s.route.includes('cognito'));
const fivexx = api.filter((s) => s.status >= 500);
const sorted = api.map((s) => s.ms).sort((a, b) => a - b);
const quantile = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
const rows: [string, string, string][] = [
  ['API requests', String(api.length), ''],
  ['5xx', `${fivexx.length} (${((fivexx.length / Math.max(1, api.length)) * 100).toFixed(3)} %)`, '<= 0.1 %'],
  ['500s', String(api.filter((s) => s.status === 500).length), '0'],
  ['503s answered again with the same key', String(api.filter((s) => s.route.endsWith('(retry)')).length), ''],
  ['jobs lost / duplicated', `${lost} / ${duplicated}`, '0 / 0'],
  ['money invariant violations', String(violations.length), '0'],
  ['unhandled rejections in the API process', String(unhandled.length), '0'],
  ['p50 / p99 latency', `${quantile(0.5).toFixed(0)} ms / ${quantile(0.99).toFixed(0)} ms`, ''],
];
console.log('\n| figure | value | goal |\n|---|---|---|');
for (const [name, value, goal] of rows) console.log(`| ${name} | ${value} | ${goal} |`);
const byRoute = new Map<string, Sample[]>();
for (const sample of api) byRoute.set(sample.route, [...(byRoute.get(sample.route) ?? []), sample]);
console.log('\n| request | count | 5xx |\n|---|---|---|');
for (const [route, list] of byRoute) console.log(`| ${route} | ${list.length} | ${list.filter((s) => s.status >= 500).length} |`);
if (violations.length) console.log(`\nViolations:\n${violations.join('\n')}`);
if (unhandled.length) console.log('\nFirst unhandled rejection:', unhandled[0]);
process.exit(0);
