import { act, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LedgerEntryView } from '#shared/api-types';
import { CREDIT_AMOUNT_DIGITS_ONLY } from '#shared/messages';
import { LOCAL_TEST_MODE_NOTE } from '../payments/CardPayment';
import { VERIFIED_USER, profileWith, renderWithApp } from '../test/render';
import { CreditsPanel, PURCHASE_RELOAD_MS, selectedCredits } from './CreditsPanel';

const entries: LedgerEntryView[] = Array.from({ length: 10 }, (_, i) => ({
  entryId: `e${i}`,
  amount: i % 2 ? -2.27 : 10,
  type: i % 2 ? 'render' : 'purchase',
  sceneId: i % 2 ? 1 : undefined,
  timestamp: new Date(Date.UTC(2026, 4, 1, 12, 0, 0) - i * 60_000).toISOString(),
  balance: 50 - i,
}));

vi.mock('../lib/api', () => ({
  ApiError: class extends Error {},
  api: {
    favorites: vi.fn(async () => ({ favorites: [] })),
    creditHistory: vi.fn(async () => ({ entries })),
    purchaseCredits: vi.fn(async (credits: number) => ({ credits, payment: { paymentId: 'p1', clientSecret: 'p1', amount: credits * 100, currency: 'usd', mode: 'local' } })),
    confirmLocalPayment: vi.fn(async () => ({ status: 'succeeded' })),
  },
}));

afterEach(() => vi.useRealTimers());

describe('credits panel', () => {
  it('when opened, it shows the balance, the four packages and the last 10 ledger entries', async () => {
    const { api } = await import('../lib/api');
    renderWithApp(<CreditsPanel />, { session: { user: VERIFIED_USER, profile: profileWith(50) } });
    expect(screen.getByTestId('credit-balance')).toHaveTextContent('50 credits');
    for (const credits of ['10', '20', '50', '100']) expect(screen.getByRole('radio', { name: new RegExp(`^${credits} credits`) })).toBeInTheDocument();
    expect(screen.getByRole('radio', { name: /^10 credits/ })).toBeChecked();
    expect(await screen.findAllByRole('row')).toHaveLength(11);
    expect(api.creditHistory).toHaveBeenCalledWith(10);
    expect(screen.getAllByText('−2.27').length).toBe(5);
  });

  it('when the credits tab shows, it has a single Purchase Credits button', () => {
    renderWithApp(<CreditsPanel />, { session: { user: VERIFIED_USER, profile: profileWith(50) } });
    expect(screen.getAllByRole('button', { name: 'Purchase Credits' })).toHaveLength(1);
  });

  it('when typing a custom amount, only digits are kept and the amount is validated', async () => {
    renderWithApp(<CreditsPanel />, { session: { user: VERIFIED_USER, profile: profileWith(50) } });
    const custom = screen.getByLabelText('Custom amount');
    await userEvent.type(custom, '3a5.');
    expect(custom).toHaveValue('35');
    expect(selectedCredits({ kind: 'custom', text: '35' })).toEqual({ credits: 35 });
    expect(selectedCredits({ kind: 'custom', text: '' })).toEqual({ error: CREDIT_AMOUNT_DIGITS_ONLY });
    expect(selectedCredits({ kind: 'custom', text: '0' })).toHaveProperty('error');
    await userEvent.clear(custom);
    await userEvent.click(screen.getByRole('button', { name: 'Purchase Credits' }));
    expect(screen.getByText(CREDIT_AMOUNT_DIGITS_ONLY)).toBeInTheDocument();
  });

  it('when a purchase succeeds, the balance rises at once, a processing entry shows, and data reloads after 5 s', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const { api } = await import('../lib/api');
    const adjustCredits = vi.fn();
    const refreshProfile = vi.fn(async () => null);
    renderWithApp(<CreditsPanel />, { session: { user: VERIFIED_USER, profile: profileWith(50), adjustCredits, refreshProfile } });
    await screen.findAllByRole('row');
    const user = userEvent.setup({ advanceTimers: vi.advanceTimersByTime });
    await user.click(screen.getByRole('radio', { name: /^20 credits/ }));
    await user.click(screen.getByRole('button', { name: 'Purchase Credits' }));
    const dialog = screen.getByRole('dialog', { name: 'Purchase Credits' });
    expect(await within(dialog).findByText(LOCAL_TEST_MODE_NOTE)).toBeInTheDocument();
    expect(api.purchaseCredits).toHaveBeenCalledWith(20, expect.stringMatching(/^[0-9a-f]{32}$/));
    await user.click(within(dialog).getByLabelText('Card number'));
    await user.paste('4242424242424242');
    await user.click(within(dialog).getByRole('button', { name: 'Pay $20.00' }));
    expect(api.confirmLocalPayment).toHaveBeenCalledWith(expect.objectContaining({ paymentId: 'p1', cardNumber: '4242424242424242' }));
    expect(adjustCredits).toHaveBeenCalledWith(20);
    expect(screen.getByText('processing')).toBeInTheDocument();
    expect(screen.getAllByText('+20').length).toBe(1);
    const calls = vi.mocked(api.creditHistory).mock.calls.length;
    await act(async () => {
      vi.advanceTimersByTime(PURCHASE_RELOAD_MS);
    });
    expect(vi.mocked(api.creditHistory).mock.calls.length).toBe(calls + 1);
    expect(refreshProfile).toHaveBeenCalled();
  });
});
