import { createFunction, json } from '../lib/http';
import { health } from '../handlers/health';
import { recordHealthSample } from '../../core/analytics/metrics';
import { listScenes, quote } from '../handlers/catalogue';
import { composeServer } from '../../composition/server';

// This module is a Lambda entry point: its adapters are bound here, once.
composeServer();

export const handler = createFunction('system', {
  'GET /api/health': async () => {
    const report = await health();
    // An uptime sample; the report stands without it, and a table that did not answer the probe cannot take it.
    if (report.components.database.ok) await recordHealthSample(report.ok).catch(() => {});
    return json(report.ok ? 200 : 503, report, report.ok ? {} : { 'Retry-After': '5' });
  },
  'GET /api/scenes': listScenes,
  'POST /api/quotes': quote,
});
