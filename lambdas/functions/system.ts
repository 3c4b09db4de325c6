import { createFunction, json, requireAdmin, type ApiEvent } from '../lib/http';
import { health, publicHealth, type HealthReport } from '../handlers/health';
import { recordHealthSample } from '../../core/analytics/metrics';
import { listScenes, quote } from '../handlers/catalogue';
import { composeServer } from '../../composition/server';

// This module is a Lambda entry point: its adapters are bound here, once.
composeServer();

async function healthAnswer(shown: (report: HealthReport) => unknown) {
  const report = await health();
  // An uptime sample; the report stands without it, and a table that did not answer the probe cannot take it.
  if (report.components.database.ok) await recordHealthSample(report.ok).catch(() => {});
  return json(report.ok ? 200 : 503, shown(report), report.ok ? {} : { 'Retry-After': '5' });
}

export const handler = createFunction('system', {
  'GET /api/health': () => healthAnswer(publicHealth),
  'GET /api/admin/health': (event: ApiEvent) => {
    requireAdmin(event);
    return healthAnswer((report) => report);
  },
  'GET /api/scenes': listScenes,
  'POST /api/quotes': quote,
});
