/**
 * The admin area's check of its caller, the admin dashboards' reads (refreshed every
 * AUTO_REFRESH_MS while the tab is visible, without the spinner) and the analytics
 * Import/Clear run.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ANALYTICS_KINDS, AUTO_REFRESH_MS } from '#shared/analytics';
import { api } from '../lib/api';
import { adminApi } from './admin-api';
import { queryKeys } from './keys';

/** Whether the signed-in caller is an admin: GET /api/me says (the server decides, and refuses every admin endpoint to anyone else). */
export async function callerIsAdmin(): Promise<boolean> {
  return (await api.me()).isAdmin;
}

/** A failed read is logged; the page shows empty figures. */
function logged<T>(request: Promise<T>, label: string): Promise<T> {
  return request.catch((error: unknown) => {
    console.error(label, error);
    throw error;
  });
}

export function useAnalyticsOverview(days: number, { paused = false } = {}) {
  return useQuery({
    queryKey: queryKeys.analyticsOverview(days),
    queryFn: () => logged(adminApi.overview(days), 'Error fetching analytics data:'),
    refetchInterval: paused ? false : AUTO_REFRESH_MS,
    retry: false,
  });
}

export function useClientAnalytics(days: number) {
  return useQuery({
    queryKey: queryKeys.clientAnalytics(days),
    queryFn: () => logged(adminApi.clientAnalytics(days), 'Error fetching client analytics:'),
    refetchInterval: AUTO_REFRESH_MS,
    retry: false,
  });
}

/** Imports or clears the six kinds in order; the dashboards read again whatever the outcome. */
export function useAnalyticsRun() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (action: 'import' | 'clear') => {
      for (const kind of ANALYTICS_KINDS) await (action === 'import' ? adminApi.importKind(kind) : adminApi.clearKind(kind));
    },
    onSettled: () => client.invalidateQueries({ queryKey: ['admin'] }),
  });
}
