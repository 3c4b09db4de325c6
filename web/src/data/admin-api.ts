/**
 * The admin endpoints the dashboards read and act through (never the database).
 * Response shapes are the handlers' own types, imported type-only.
 */
import type { AnalyticsKind } from '#shared/analytics';
import type { AnalyticsOverview, ClearResponse, ClientAnalyticsView, ImportResponse } from '#shared/analytics-api';
import { clearKindFailed, importKindFailed } from '#shared/messages';
import { apiRequest } from '../lib/api';

export type { AnalyticsOverview, ClientAnalyticsView };

export const adminApi = {
  overview: (days: number) => apiRequest<AnalyticsOverview>('GET', `/admin/analytics?days=${days}`),
  clientAnalytics: (days: number) => apiRequest<ClientAnalyticsView>('GET', `/admin/client-analytics?days=${days}`),
  /** Only whether the answer is OK matters; a failure is 'Failed to import {kind}'. */
  importKind: async (kind: AnalyticsKind) => {
    try {
      return await apiRequest<ImportResponse>('GET', `/analytics/import/${kind}`);
    } catch (cause) {
      throw new Error(importKindFailed(kind), { cause });
    }
  },
  clearKind: async (kind: AnalyticsKind) => {
    try {
      return await apiRequest<ClearResponse>('DELETE', `/analytics/clear/${kind}`);
    } catch (cause) {
      throw new Error(clearKindFailed(kind), { cause });
    }
  },
};
