/**
 * The SPA's runtime settings, /config.json. The same file is served by the local stack
 * in dev and written by the CDK stack to the site bucket on AWS (one schema for all
 * three: shared/site-config.ts), so nothing here hard-codes an endpoint or a pool id.
 * The first paint does not wait for it: main.tsx starts the request, and only what
 * needs a setting (auth, payments, the site gate) waits for configReady().
 */
import { useSyncExternalStore } from 'react';
import type { SiteConfig } from '#shared/site-config';

export type WebConfig = SiteConfig;

export class ConfigError extends Error {}

let current: WebConfig | undefined;
let loading: Promise<WebConfig> | undefined;
const listeners = new Set<(config: WebConfig) => void>();

/** Validates the parsed file; a missing or malformed setting fails with a message that names it. */
export async function parseConfig(raw: unknown): Promise<WebConfig> {
  // The schema (zod) loads with the file, not with the first paint.
  const { siteConfigSchema } = await import('#shared/site-config');
  const parsed = siteConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`config.json: setting '${issue.path.join('.') || '(root)'}': ${issue.message}`);
  }
  const config = parsed.data;
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
