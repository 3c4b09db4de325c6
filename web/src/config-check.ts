/**
 * config.json against its schema (shared/site-config.ts, zod). Run in a worker where the
 * browser has them (./config-worker.ts), so that building zod's schemas never blocks the
 * page; here, in the page, where it has none (jsdom) or the worker fails.
 */
import { siteConfigSchema, type SiteConfig } from '#shared/site-config';

export type ConfigCheck = { ok: true; config: SiteConfig } | { ok: false; message: string };

/** The parsed settings, or a message that names the first missing or malformed setting. */
export function checkSiteConfig(raw: unknown): ConfigCheck {
  const parsed = siteConfigSchema.safeParse(raw);
  if (parsed.success) return { ok: true, config: parsed.data };
  const issue = parsed.error.issues[0];
  return { ok: false, message: `config.json: setting '${issue.path.join('.') || '(root)'}': ${issue.message}` };
}
