import { defineConfig } from 'vitest/config';

/**
 * Test tiers (README.md, "Conventions"): pure domain tests; the API against the local stack
 * (DynamoDB Local, cognito-local, s3rver) started once by a global setup; real
 * Blender renders; CDK assertions; web components in jsdom; journeys in Chromium.
 */
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node' } },
      { test: { name: 'web', include: ['web/src/**/*.test.{ts,tsx}'], environment: 'jsdom', setupFiles: ['web/src/test-setup.ts'], testTimeout: 30_000 } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/integration/global-setup.ts'],
          setupFiles: ['test/integration/setup-env.ts'],
          testTimeout: 240_000,
          hookTimeout: 120_000,
          // The tests share one stack; files run one after another so timings stay sane on 2 cores.
          fileParallelism: false,
        },
      },
      { test: { name: 'render', include: ['test/render/**/*.test.ts'], environment: 'node', testTimeout: 300_000, hookTimeout: 300_000, fileParallelism: false } },
      { test: { name: 'infra', include: ['test/infra/**/*.test.ts'], environment: 'node', testTimeout: 300_000, hookTimeout: 300_000 } },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          environment: 'node',
          // The local stack and the web app (Vite), started once; Chromium drives the web app.
          globalSetup: ['test/e2e/global-setup.ts'],
          setupFiles: ['test/e2e/setup-env.ts'],
          // Journeys wait for real Blender renders on a loaded 2-core machine.
          testTimeout: 600_000,
          hookTimeout: 300_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
