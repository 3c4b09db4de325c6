/**
 * Smoke test of a running deployment, end to end, without spending money:
 *
 *   npm run smoke -- <base URL>          e.g. the SiteUrl output, or http://localhost:5173
 *
 * Optional environment: SMOKE_EMAIL and SMOKE_PASSWORD, a verified user of that
 * deployment, to sign in and make a free 128x128 test render of a still (free
 * renders are rate-limited per user per day, so use a dedicated account);
 * SMOKE_RENDER_TIMEOUT_SECONDS (default 300) for that render.
 *
 * Every request gives up after 10 s and the first failed step stops the run, so
 * a deployment that is down fails in seconds, naming the step. Exit code 0 when
 * every step passed, 1 otherwise, 2 for a usage error.
 */
import { generateKeyPairSync, createSign, randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import { CognitoIdentityProviderClient, InitiateAuthCommand } from '@aws-sdk/client-cognito-identity-provider';
import { scenes } from '#shared/catalogue';
import { siteConfigSchema, type SiteConfig } from '#shared/site-config';
import type { CreateJobResponse, JobView, MainOutput } from '#shared/api-types';

const REQUEST_TIMEOUT_MS = 10_000;
const POLL_INTERVAL_MS = 2_000;

class StepFailure extends Error {}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  json: () => any;
}

/** The headers CloudFront's response headers policy adds; missing ones are returned as a list of problems. */
export function securityHeaderProblems(headers: Headers): string[] {
  const problems: string[] = [];
  const hsts = headers.get('strict-transport-security') ?? '';
  const maxAge = Number(/max-age=(\d+)/i.exec(hsts)?.[1] ?? 0);
  if (maxAge < 31_536_000) problems.push(`Strict-Transport-Security should have max-age of a year or more (got "${hsts}")`);
  const csp = headers.get('content-security-policy') ?? '';
  if (!/frame-ancestors 'none'/.test(csp) || !/object-src 'none'/.test(csp)) problems.push(`Content-Security-Policy should forbid framing and plugins (got "${csp}")`);
  const nosniff = headers.get('x-content-type-options') ?? '';
  if (nosniff.toLowerCase() !== 'nosniff') problems.push(`X-Content-Type-Options should be nosniff (got "${nosniff}")`);
  const frames = headers.get('x-frame-options') ?? '';
  if (frames.toUpperCase() !== 'DENY') problems.push(`X-Frame-Options should be DENY (got "${frames}")`);
  return problems;
}

/** A well-formed token the deployment never issued: the real one with another user's id, or one signed with a key of our own. */
export function forgedToken(realToken: string | undefined, config: SiteConfig): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  if (realToken) {
    const [header, payload, signature] = realToken.split('.');
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    // Same issuer, audience, expiry and signature: only the subject changed, so only the signature check can refuse it.
    return [header, encode({ ...claims, sub: randomUUID() }), signature].join('.');
  }
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const now = Math.floor(Date.now() / 1000);
  const unsigned = `${encode({ alg: 'RS256', kid: 'smoke-test-forged', typ: 'JWT' })}.${encode({
    sub: randomUUID(),
    aud: config.userPoolClientId,
    token_use: 'id',
    email: 'forged@example.com',
    email_verified: true,
    'cognito:groups': ['admin'],
    iat: now,
    exp: now + 3600,
  })}`;
  return `${unsigned}.${createSign('RSA-SHA256').update(unsigned).sign(privateKey).toString('base64url')}`;
}

function describeFetchError(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) return `no answer within ${REQUEST_TIMEOUT_MS / 1000} s`;
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error);
}

function makeClient(baseUrl: string) {
  return async function call(path: string, init: { method?: string; token?: string; body?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
    const method = init.method ?? (init.body !== undefined ? 'POST' : 'GET');
    const url = path.startsWith('http') ? path : `${baseUrl}${path}`;
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method,
        headers: {
          ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
          ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...init.headers,
        },
        body: init.body,
        redirect: 'manual',
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      text = await response.text();
    } catch (error) {
      throw new StepFailure(`${method} ${url}: ${describeFetchError(error)}`);
    }
    return {
      status: response.status,
      headers: response.headers,
      text,
      json: () => {
        try {
          return JSON.parse(text);
        } catch {
          throw new StepFailure(`${method} ${url} answered ${response.status} with a body that is not JSON: ${text.slice(0, 200)}`);
        }
      },
    };
  };
}

function expectStatus(answer: Answer, expected: number, what: string): void {
  if (answer.status !== expected) throw new StepFailure(`${what} answered ${answer.status}, expected ${expected}: ${answer.text.slice(0, 300)}`);
}

async function signIn(config: SiteConfig, email: string, password: string): Promise<string> {
  const cognito = new CognitoIdentityProviderClient({
    region: config.region,
    ...(config.userPoolEndpoint ? { endpoint: config.userPoolEndpoint } : {}),
    maxAttempts: 1,
    requestHandler: { requestTimeout: REQUEST_TIMEOUT_MS },
  });
  try {
    const result = await cognito.send(
      new InitiateAuthCommand({ AuthFlow: 'USER_PASSWORD_AUTH', ClientId: config.userPoolClientId, AuthParameters: { USERNAME: email, PASSWORD: password } }),
    );
    const token = result.AuthenticationResult?.IdToken;
    if (!token) throw new StepFailure(`sign-in of ${email} asked for a challenge (${result.ChallengeName ?? 'none'}) instead of returning tokens`);
    return token;
  } catch (error) {
    if (error instanceof StepFailure) throw error;
    throw new StepFailure(`sign-in of ${email}: ${(error as Error).message}`);
  } finally {
    cognito.destroy();
  }
}

interface Step {
  name: string;
  run: () => Promise<string>;
}

export async function smoke(baseUrl: string, env: NodeJS.ProcessEnv, print: (line: string) => void): Promise<boolean> {
  const call = makeClient(baseUrl.replace(/\/+$/, ''));
  const https = baseUrl.startsWith('https://');
  const credentials = env.SMOKE_EMAIL && env.SMOKE_PASSWORD ? { email: env.SMOKE_EMAIL, password: env.SMOKE_PASSWORD } : undefined;
  const renderTimeoutMs = Number(env.SMOKE_RENDER_TIMEOUT_SECONDS ?? 300) * 1000;
  let config: SiteConfig | undefined;
  let token: string | undefined;
  let healthHeaders: Headers | undefined;

  const steps: Step[] = [
    {
      name: 'health',
      run: async () => {
        const answer = await call('/api/health');
        healthHeaders = answer.headers;
        // The public report names no details (GET /api/admin/health has them, for an admin).
        const report = answer.json() as { ok?: boolean; components?: Record<string, string> };
        const components = Object.entries(report.components ?? {});
        const down = components.filter(([, state]) => state !== 'ok');
        if (answer.status !== 200 || !report.ok || components.length === 0 || down.length > 0) {
          throw new StepFailure(`GET /api/health answered ${answer.status}; down: ${down.map(([name]) => name).join(', ') || answer.text.slice(0, 300)}`);
        }
        return `${components.map(([name]) => name).join(', ')}: all ok`;
      },
    },
    {
      name: 'catalogue',
      run: async () => {
        const answer = await call('/api/scenes');
        expectStatus(answer, 200, 'GET /api/scenes');
        const served = ((answer.json() as { scenes?: { id: number }[] }).scenes ?? []).map((scene) => scene.id).sort((a, b) => a - b);
        const expected = scenes.map((scene) => scene.id).sort((a, b) => a - b);
        if (served.join(',') !== expected.join(',')) {
          throw new StepFailure(`the deployment serves scenes [${served.join(', ')}], this checkout has [${expected.join(', ')}] (is the deployment out of date?)`);
        }
        return `${served.length} scenes`;
      },
    },
    {
      name: 'site config',
      run: async () => {
        const answer = await call('/config.json');
        expectStatus(answer, 200, 'GET /config.json');
        const parsed = siteConfigSchema.safeParse(answer.json());
        if (!parsed.success) throw new StepFailure(`/config.json is not a valid site config: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
        config = parsed.data;
        return `payments ${config.paymentsMode}, user pool ${config.userPoolId}${config.googleSignIn ? ', Google sign-in' : ''}`;
      },
    },
    {
      name: 'security headers',
      run: async () => {
        if (!https) return 'skipped: the URL is not https (CloudFront adds them)';
        const page = await call('/');
        const problems = [
          ...securityHeaderProblems(page.headers).map((problem) => `/: ${problem}`),
          ...securityHeaderProblems(healthHeaders!).map((problem) => `/api/health: ${problem}`),
        ];
        if (problems.length > 0) throw new StepFailure(problems.join('; '));
        return 'HSTS, CSP, X-Content-Type-Options and X-Frame-Options on the site and the API';
      },
    },
    {
      name: 'signed-out call refused',
      run: async () => {
        expectStatus(await call('/api/me'), 401, 'GET /api/me without a token');
        return 'GET /api/me: 401';
      },
    },
    {
      name: 'sign in',
      run: async () => {
        if (!credentials) return 'skipped: set SMOKE_EMAIL and SMOKE_PASSWORD to sign in and render';
        token = await signIn(config!, credentials.email, credentials.password);
        expectStatus(await call('/api/me', { token }), 200, `GET /api/me as ${credentials.email}`);
        return `${credentials.email}: GET /api/me 200`;
      },
    },
    {
      name: 'forged token refused',
      run: async () => {
        expectStatus(await call('/api/me', { token: forgedToken(token, config!) }), 401, 'GET /api/me with a forged token');
        return `GET /api/me with a ${token ? 'tampered' : 'self-signed'} token: 401`;
      },
    },
    {
      name: 'unsigned webhook refused',
      run: async () => {
        const event = JSON.stringify({ id: `evt_smoke_${randomUUID()}`, type: 'payment_intent.succeeded', data: { object: { id: 'pi_smoke' } } });
        const answer = await call('/api/payments/webhook', { body: event });
        // Locally there is no webhook at all (the local provider settles payments itself).
        const expected = config!.paymentsMode === 'stripe' ? 400 : 404;
        expectStatus(answer, expected, 'POST /api/payments/webhook without a signature');
        return `${answer.status}${expected === 404 ? ' (local payments: no webhook)' : ''}`;
      },
    },
    {
      name: 'free test render',
      run: async () => {
        if (!token) return 'skipped: no signed-in user';
        const body = JSON.stringify({ sceneId: 1, mode: 'still', resolutionX: 128, resolutionY: 128, customText: 'Smoke test', options: '', isTest: true, paymentMethod: 'credits' });
        const created = await call('/api/jobs', { body, token });
        expectStatus(created, 200, 'POST /api/jobs (free test render)');
        const { job } = created.json() as CreateJobResponse;
        if (job.estimatedPrice !== 0) throw new StepFailure(`the test render was priced ${job.estimatedPrice}, expected free`);
        const deadline = Date.now() + renderTimeoutMs;
        let status = job.status;
        if (!status) throw new StepFailure(`POST /api/jobs answered without a job status: ${created.text.slice(0, 300)}`);
        while (status !== 'done') {
          if (status === 'failed' || status === 'abandoned') throw new StepFailure(`job ${job.jobId} ended ${status}`);
          if (Date.now() > deadline) throw new StepFailure(`job ${job.jobId} still ${status} after ${renderTimeoutMs / 1000} s`);
          await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
          const polled = await call(`/api/jobs/${job.jobId}`, { token });
          expectStatus(polled, 200, `GET /api/jobs/${job.jobId}`);
          status = (polled.json() as { job: JobView }).job.status;
        }
        const main = await call(`/api/jobs/${job.jobId}/main-output`, { token });
        expectStatus(main, 200, `GET /api/jobs/${job.jobId}/main-output`);
        const output = main.json() as MainOutput;
        const file = await call(output.url);
        expectStatus(file, 200, `download of ${output.name}`);
        if (!output.contentType.startsWith('image/') || file.text.length === 0) throw new StepFailure(`${output.name} is ${output.contentType}, ${file.text.length} bytes: not an image`);
        return `job ${job.jobId} done; ${output.name} (${output.contentType}) downloaded`;
      },
    },
  ];

  print(`Smoke test of ${baseUrl}`);
  const started = Date.now();
  for (const step of steps) {
    const stepStarted = Date.now();
    const took = () => `${String(Date.now() - stepStarted).padStart(6)} ms`;
    try {
      const detail = await step.run();
      print(`  ok    ${step.name.padEnd(26)}${took()}  ${detail}`);
    } catch (error) {
      const reason = error instanceof StepFailure ? error.message : `unexpected error: ${(error as Error).stack ?? error}`;
      print(`  FAIL  ${step.name.padEnd(26)}${took()}  ${reason}`);
      print(`Smoke test FAILED at step "${step.name}" after ${((Date.now() - started) / 1000).toFixed(1)} s`);
      return false;
    }
  }
  print(`Smoke test passed: ${steps.length} steps in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return true;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const baseUrl = process.argv[2];
  if (!baseUrl || !/^https?:\/\/[^/]+/.test(baseUrl)) {
    console.error('Usage: npm run smoke -- <base URL>   (the SiteUrl output of the stack, or http://localhost:5173)');
    process.exit(2);
  }
  const passed = await smoke(baseUrl, process.env, (line) => console.log(line));
  process.exit(passed ? 0 : 1);
}
