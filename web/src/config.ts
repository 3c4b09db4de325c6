/**
 * The SPA's runtime settings, read once from /config.json before the app renders.
 * The same file is served by the local stack in dev and written by the CDK stack to
 * the site bucket on AWS (one schema for all three: shared/site-config.ts), so
 * nothing here hard-codes an endpoint or a pool id.
 */
import { siteConfigSchema, type SiteConfig } from '../../shared/site-config';

export type WebConfig = SiteConfig;

export class ConfigError extends Error {}

let current: WebConfig | undefined;

/** Validates the parsed file; a missing or malformed setting fails with a message that names it. */
export function parseConfig(raw: unknown): WebConfig {
  const parsed = siteConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(`config.json: setting '${issue.path.join('.') || '(root)'}': ${issue.message}`);
  }
  const config = parsed.data;
  if (config.paymentsMode === 'stripe' && !config.stripePublishableKey) throw new ConfigError("config.json: missing setting 'stripePublishableKey'");
  return config;
}

export async function loadConfig(): Promise<WebConfig> {
  const response = await fetch('/config.json', { cache: 'no-store' });
  if (!response.ok) throw new ConfigError(`config.json could not be loaded (HTTP ${response.status})`);
  current = parseConfig(await response.json());
  return current;
}

/** For tests and for the app after loadConfig(). */
export function setConfig(config: WebConfig): void {
  current = config;
}

export function getConfig(): WebConfig {
  if (!current) throw new ConfigError('config.json has not been loaded yet');
  return current;
}
