/**
 * The SPA's runtime settings, /config.json. The same file is served by the local stack
 * in dev and written by the CDK stack to the site bucket on AWS (one schema for all
 * three: shared/site-config.ts), so nothing here hard-codes an endpoint or a pool id.
 * The first paint does not wait for it: main.tsx starts the request, and only what
 * needs a setting (auth, payments, the site gate) waits for configReady(). The file is
 * checked against the schema in a worker (./config-worker.ts), off the main thread.
 */
import { useSyncExternalStore } from 'react';
import type { SiteConfig } from '#shared/site-config';
import type { ConfigCheck } from './config-check';

export type WebConfig = SiteConfig;

export class ConfigError extends Error {}

let current: WebConfig | undefined;
let loading: Promise<WebConfig> | undefined;
const listeners = new Set<(config: WebConfig) => void>();

/** The schema's check in the page: its code (zod) loads with the file, not with the first paint. */
async function checkHere(raw: unknown): Promise<ConfigCheck> {
  return (await import('./config-check')).checkSiteConfig(raw);
}

/**
 * The schema's check in a worker: zod building its schemas is a long task for a slow
 * phone's main thread just as the page starts, and in a worker it blocks nothing. In the
 * page where there are no workers, or the worker fails to start or answer.
 */
function check(raw: unknown): Promise<ConfigCheck> {
  if (typeof Worker === 'undefined') return checkHere(raw);
  return new Promise((resolve) => {
    let worker: Worker;
    try {
      worker = new Worker(new URL('./config-worker.ts', import.meta.url), { type: 'module', name: 'config-check' });
    } catch {
      resolve(checkHere(raw));
      return;
    }
    const answered = (answer: Promise<ConfigCheck> | ConfigCheck) => {
      worker.terminate();
      resolve(answer);
    };
    worker.onmessage = (event: MessageEvent<ConfigCheck>) => answered(event.data);
    worker.onerror = worker.onmessageerror = () => answered(checkHere(raw));
    worker.postMessage(raw);
  });
}

/** Validates the parsed file; a missing or malformed setting fails with a message that names it. */
export async function parseConfig(raw: unknown): Promise<WebConfig> {
  const checked = await check(raw);
  if (!checked.ok) throw new ConfigError(checked.message);
  const config = checked.config;
  if (config.paymentsMode === 'stripe' && !config.stripePublishableKey) throw new ConfigError("config.json: missing setting 'stripePublishableKey'");
  return config;
}

/** The settings, read once (no-store: a deploy changes them without renaming the file). */
export function configReady(): Promise<WebConfig> {
  loading ??= (async () => {
    if (current) return current;
    const response = await fetch('/config.json', { cache: 'no-store' });
    if (!response.ok) throw new ConfigError(`config.json could not be loaded (HTTP ${response.status})`);
    setConfig(await parseConfig(await response.json()));
    return current!;
  })();
  return loading;
}

/** For tests, and for configReady() once the file is in. */
export function setConfig(config: WebConfig): void {
  current = config;
  for (const listener of listeners) listener(config);
}

/** The settings if they have arrived (undefined until then). */
export function peekConfig(): WebConfig | undefined {
  return current;
}

export function onConfig(listener: (config: WebConfig) => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

/**
 * The settings in a component that renders before they arrive (the first paint does not wait for them):
 * undefined until then, and the component renders again when they are in.
 */
export function useWebConfig(): WebConfig | undefined {
  return useSyncExternalStore(onConfig, peekConfig);
}

export function getConfig(): WebConfig {
  if (!current) throw new ConfigError('config.json has not been loaded yet');
  return current;
}
