import type { TestProject } from 'vitest/node';
import { startLocalStack, type LocalStack } from '#infra/local/stack';
import { freePort, type Service } from '#infra/local/ports';
import { startWebServer } from '#infra/local/web-server';

let stack: LocalStack | undefined;
let web: Service | undefined;

/**
 * The browser journeys' system: the embedded stack (in memory, free ports) and the
 * web app's dev server in front of it, exactly as `npm run dev` wires them. The web
 * port is chosen first so the e-mails' links (verification) point at the web app.
 */
export async function setup(project: TestProject) {
  // The shared stack's log lines would bury the test report: only its warnings and errors, and no metric lines (observability.test.ts reads both, from its own API).
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  const started = Date.now();
  const webPort = await freePort();
  const webUrl = `http://localhost:${webPort}`;
  // DynamoDB Local runs transactions one at a time: on a loaded 2-core machine a burst waits seconds in its
  // queue, which AWS never makes a request wait. Tests that are not about deadlines get four times as long;
  // the deadline tests set their own (test/integration/dependency-faults.test.ts).
  process.env.CALL_TIMEOUT_SCALE = '4';
  stack = await startLocalStack({ siteUrl: webUrl });
  try {
    web = await startWebServer({ port: webPort, apiUrl: stack.apiUrl });
    // The first page load makes Vite transform the app: do it once here, not inside a journey's time limit.
    for (const path of ['/', '/config.json', '/src/main.tsx']) await fetch(`${webUrl}${path}`).then((r) => r.text());
  } catch (error) {
    await stack.stop();
    throw error;
  }
  console.log(`e2e: stack and web app up in ${((Date.now() - started) / 1000).toFixed(1)} s at ${webUrl}`);
  project.provide('webUrl', webUrl);
  project.provide('stackEnv', { ...stack.env, CALL_TIMEOUT_SCALE: '4' });
  project.provide('apiUrl', stack.apiUrl);
  project.provide('dataDir', stack.dataDir);
}

export async function teardown() {
  await web?.stop().catch(() => {});
  await stack?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    webUrl: string;
    stackEnv: Record<string, string>;
    apiUrl: string;
    dataDir: string;
  }
}
