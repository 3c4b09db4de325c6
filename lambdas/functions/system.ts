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
    await recordHealthSample(report.ok).catch(() => {}); // an uptime sample; the report stands without it
    return json(report.ok ? 200 : 503, report);
  },
  'GET /api/scenes': listScenes,
  'POST /api/quotes': quote,
});
