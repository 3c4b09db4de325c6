/** The credit ledger and credit purchases. */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api } from '../lib/api';
import { queryKeys } from './keys';

export function useCreditHistory(limit: number) {
  return useQuery({ queryKey: queryKeys.creditHistory(limit), queryFn: async () => (await api.creditHistory(limit)).entries });
}

/** Starts a purchase (the card step follows); the ledger is read again once it is paid. */
export function usePurchaseCredits() {
  return useMutation({ mutationFn: ({ credits, idempotencyKey }: { credits: number; idempotencyKey: string }) => api.purchaseCredits(credits, idempotencyKey) });
}

/** The ledger after a purchase was paid: marked stale so its next read is the server's. */
export function useRefreshCredits() {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: ['credits'] });
}
