/**
 * The server-state cache every page reads through (TanStack Query). Defaults: a
 * failed read is retried twice with back-off unless the server said no (4xx codes
 * are answers, not outages); intervals pause while the tab is hidden; a tab coming
 * back into view refreshes what it shows.
 */
import { QueryClient } from '@tanstack/react-query';
import { ApiError } from '../lib/api';

/** Failures a second try may not meet: the network, or a part of ours that was down. */
const RETRYABLE_CODES = new Set(['network', 'unavailable', 'internal', 'rate_limited']);

/** Whether a second try may meet something else: not when the server answered (a 4xx code is its answer). */
export function isRetryableFailure(error: unknown): boolean {
  return !(error instanceof ApiError) || RETRYABLE_CODES.has(error.code);
}

export function shouldRetry(failureCount: number, error: unknown): boolean {
  return isRetryableFailure(error) && failureCount < 2;
}

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      queries: {
        retry: shouldRetry,
        retryDelay: (attempt) => Math.min(1000 * 2 ** attempt, 10_000),
        refetchIntervalInBackground: false,
        refetchOnWindowFocus: true,
        staleTime: 2000,
      },
      mutations: { retry: false },
    },
  });
}
