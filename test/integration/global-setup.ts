import type { TestProject } from 'vitest/node';
import { startLocalStack, type LocalStack } from '#infra/local/stack';

let stack: LocalStack | undefined;

/** Starts the embedded stack once on free ports, in memory, for every integration test file. */
export async function setup(project: TestProject) {
  // The shared stack's log lines would bury the test report: only its warnings and errors, and no metric lines (observability.test.ts reads both, from its own API).
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  // DynamoDB Local runs transactions one at a time: on a loaded 2-core machine a burst waits seconds in its
  // queue, which AWS never makes a request wait. Tests that are not about deadlines get four times as long;
  // the deadline tests set their own (test/integration/dependency-faults.test.ts).
  process.env.CALL_TIMEOUT_SCALE = '4';
  // One key's requests in these tests come faster than its budget of 20 a second on a quick machine; the budget
  // itself is measured by rate-limits.test.ts, against an API of its own with a budget of its own.
  process.env.API_KEY_REQUESTS_PER_SECOND = '1000';
  stack = await startLocalStack();
  project.provide('stackEnv', { ...stack.env, CALL_TIMEOUT_SCALE: '4', API_KEY_REQUESTS_PER_SECOND: '1000' });
  project.provide('apiUrl', stack.apiUrl);
  project.provide('dataDir', stack.dataDir);
}

export async function teardown() {
  await stack?.stop();
}

declare module 'vitest' {
  export interface ProvidedContext {
    stackEnv: Record<string, string>;
    apiUrl: string;
    dataDir: string;
  }
}
