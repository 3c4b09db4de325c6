import { createFunction } from '../lib/http';
import { adminHealthCheck, publicHealthCheck } from '../handlers/health';
import { listScenes, quote, sceneDelivery } from '../handlers/catalogue';
import { composeServer } from '#composition/server';

// This module is a Lambda entry point: its adapters are bound here, once.
composeServer();

export const handler = createFunction('system', {
  'GET /api/health': publicHealthCheck,
  'GET /api/admin/health': adminHealthCheck,
  'GET /api/scenes': listScenes,
  'GET /api/scenes/{sceneId}/delivery': sceneDelivery,
  'POST /api/quotes': quote,
});
