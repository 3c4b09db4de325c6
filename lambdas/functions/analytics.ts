import { createFunction } from '../lib/http';
import { adminAnalytics, adminClientAnalytics, clearAnalytics, importAnalytics, postPageView, postSession } from '../handlers/analytics';
import { visitorPreview } from '../handlers/previews';
import { composeServer } from '#composition/server';

// This module is a Lambda entry point: its adapters are bound here, once.
composeServer();

export const handler = createFunction('analytics', {
  'POST /api/sessions': postSession,
  'POST /api/page-views': postPageView,
  'POST /api/visitor-previews': visitorPreview,
  'GET /api/admin/analytics': adminAnalytics,
  'GET /api/admin/client-analytics': adminClientAnalytics,
  'GET /api/analytics/import/{kind}': importAnalytics,
  'DELETE /api/analytics/clear/{kind}': clearAnalytics,
});
