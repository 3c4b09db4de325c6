import { createFunction, json } from '../lib/http';
import { health } from '../handlers/health';
import { listScenes, quote } from '../handlers/catalogue';

export const handler = createFunction('system', {
  'GET /api/health': async () => {
    const report = await health();
    return json(report.ok ? 200 : 503, report);
  },
  'GET /api/scenes': listScenes,
  'POST /api/quotes': quote,
});
