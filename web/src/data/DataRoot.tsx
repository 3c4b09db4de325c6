/**
 * The server-state cache for the pages that read through it. Loaded with the first of
 * those pages, so TanStack Query stays out of the home route's initial JavaScript; one
 * client for the whole visit, so the cache outlives a page change.
 */
import { QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { createQueryClient } from './query-client';

const client = createQueryClient();

export default function DataRoot({ children }: { children: ReactNode }) {
  return <QueryClientProvider client={client}>{children}</QueryClientProvider>;
}
