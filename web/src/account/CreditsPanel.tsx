/**
 * Credits: balance, 'Purchase Credits', the packages (10, 20, 50, 100; default 10), a
 * custom amount (digits only) and the last 10 ledger entries. After a purchase the
 * balance rises at once, a temporary 'processing' entry is shown, and the real data is
 * reloaded after 5 seconds (the payment is fulfilled by the webhook meanwhile).
 */
import { useEffect, useRef, useState } from 'react';
import type { LedgerEntryView, PaymentTicket } from '#shared/api-types';
import { getScene } from '#shared/catalogue';
import { PAYMENT_INTENT_FAILED, paymentProcessingError } from '#shared/messages';
import { CREDIT_PACKAGES, DEFAULT_CREDIT_PACKAGE, formatUsd, USD_PER_CREDIT } from '#shared/pricing';
import { customCreditAmount } from '#shared/schemas';
import { formatCredits } from '../components/Layout';
import { Modal } from '../components/Modal';
import { Spinner, formatDateTime } from '../components/ui';
import { useCreditHistory, usePurchaseCredits, useRefreshCredits } from '../data/credits';
import { ApiError } from '../lib/api';
import { newIdempotencyKey } from '../lib/idempotency';
import { useSession } from '../lib/session';
import { useNotify } from '../lib/toasts';
import { CardPayment } from '../payments/CardPayment';

export const CREDIT_HISTORY_LIMIT = 10;
export const PURCHASE_RELOAD_MS = 5000;

const TYPE_LABELS: Record<LedgerEntryView['type'], string> = { purchase: 'Purchase', render: 'Render', refund: 'Refund', bonus: 'Bonus', chargeback: 'Card refund or dispute', payment_credit: 'Card payment kept as credits' };

type Selection = { kind: 'package'; credits: number } | { kind: 'custom'; text: string };

/** The credits a selection buys, or the custom amount's validation message. */
export function selectedCredits(selection: Selection): { credits: number } | { error: string } {
  if (selection.kind === 'package') return { credits: selection.credits };
  const parsed = customCreditAmount.safeParse(selection.text);
  return parsed.success ? { credits: parsed.data } : { error: parsed.error.issues[0].message };
}

export function processingEntry(credits: number, balanceAfter: number, now = new Date()): LedgerEntryView {
  return { entryId: `processing-${now.getTime()}`, amount: credits, type: 'purchase', timestamp: now.toISOString(), balance: balanceAfter, status: 'processing' };
}

function PurchaseModal({ credits, onClose, onPaid }: { credits: number; onClose: () => void; onPaid: () => void }) {
  const [ticket, setTicket] = useState<PaymentTicket | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [paying, setPaying] = useState(false);
  const purchase = usePurchaseCredits();
  const started = useRef(false);
  // One purchase per opened dialog, even if the request is sent twice.
  const purchaseKey = useRef(newIdempotencyKey());
  useEffect(() => {
    if (started.current) return;
    started.current = true;
    purchase.mutateAsync({ credits, idempotencyKey: purchaseKey.current }).then(
      (response) => (response.payment ? setTicket(response.payment) : setError(PAYMENT_INTENT_FAILED)),
      (cause) => setError(paymentProcessingError(cause instanceof ApiError ? cause.message : PAYMENT_INTENT_FAILED)),
    );
  }, [credits, purchase]);
  return (
    <Modal title="Purchase Credits" onClose={onClose} dismissable={!paying}>
      <div className="price-line" style={{ marginBottom: 12 }}>
        <span>
          <strong>{credits} credits</strong> <span className="muted">· $1.00 each</span>
        </span>
        <span className="price-amount">{formatUsd(credits * USD_PER_CREDIT)}</span>
      </div>
      {error ? (
        <p className="form-error" role="alert">
          {error}
        </p>
      ) : ticket ? (
        <CardPayment ticket={ticket} submitLabel={`Pay ${formatUsd(credits * USD_PER_CREDIT)}`} onSucceeded={onPaid} onBusyChange={setPaying} />
      ) : (
        <Spinner label="Preparing secure payment..." />
      )}
    </Modal>
  );
}

export function CreditsPanel() {
  const { profile, adjustCredits, refreshProfile } = useSession();
  const notify = useNotify();
  const history = useCreditHistory(CREDIT_HISTORY_LIMIT);
  const [pending, setPending] = useState<LedgerEntryView[]>([]);
  const entries = history.data || history.isError ? [...pending, ...(history.data ?? [])].slice(0, CREDIT_HISTORY_LIMIT) : null;
  const refreshCredits = useRefreshCredits();
  const [selection, setSelection] = useState<Selection>({ kind: 'package', credits: DEFAULT_CREDIT_PACKAGE });
  const [purchasing, setPurchasing] = useState<number | null>(null);
  const [customError, setCustomError] = useState<string | null>(null);
  const reloadTimer = useRef<number | undefined>(undefined);

  useEffect(() => () => window.clearTimeout(reloadTimer.current), []);

  const startPurchase = () => {
    const result = selectedCredits(selection);
    if ('error' in result) {
      setCustomError(result.error);
      return;
    }
    setCustomError(null);
    setPurchasing(result.credits);
  };

  const paid = (credits: number) => {
    const balanceAfter = (profile?.credits ?? 0) + credits;
    adjustCredits(credits);
    setPending((current) => [processingEntry(credits, balanceAfter), ...current]);
    setPurchasing(null);
    notify(`Payment received: ${credits} credits are being added to your balance.`, 'success');
    window.clearTimeout(reloadTimer.current);
    reloadTimer.current = window.setTimeout(() => {
      void refreshCredits().then(() => setPending([]));
      void refreshProfile();
    }, PURCHASE_RELOAD_MS);
  };

  return (
    <div className="stack" style={{ gap: 20 }}>
      <div className="balance-card">
        <div>
          <div className="label">Credit balance</div>
          <div className="amount" data-testid="credit-balance">
            {profile ? formatCredits(profile.credits) : '—'} <span style={{ fontSize: '1rem', fontWeight: 600 }}>credits</span>
          </div>
          <div className="label">1 credit = $1.00 · use credits to pay for renders instantly</div>
        </div>
      </div>

      <section className="panel" aria-labelledby="packages-title">
        <div className="panel-title">
          <h2 id="packages-title">Buy credits</h2>
        </div>
        <fieldset className="subfield">
          <legend className="sr-only">Credit package</legend>
          <div className="packages">
            {CREDIT_PACKAGES.map((credits) => (
              <label key={credits} className="choice package">
                <input
                  type="radio"
                  name="credit-package"
                  checked={selection.kind === 'package' && selection.credits === credits}
                  onChange={() => {
                    setSelection({ kind: 'package', credits });
                    setCustomError(null);
                  }}
                />
                <span className="choice-card">
                  <strong>{credits}</strong>{' '}
                  <small>credits · {formatUsd(credits * USD_PER_CREDIT)}</small>
                </span>
              </label>
            ))}
          </div>
        </fieldset>
        <div className="field" style={{ marginTop: 14 }}>
          <label htmlFor="custom-credits">Custom amount</label>
          <input
            id="custom-credits"
            className="input"
            inputMode="numeric"
            pattern="[0-9]*"
            placeholder="e.g. 35"
            value={selection.kind === 'custom' ? selection.text : ''}
            aria-invalid={customError ? true : undefined}
            aria-describedby="custom-credits-hint"
            onFocus={() => selection.kind !== 'custom' && setSelection({ kind: 'custom', text: '' })}
            onChange={(event) => {
              setSelection({ kind: 'custom', text: event.target.value.replace(/\D/g, '') });
              setCustomError(null);
            }}
            onKeyDown={(event) => event.key === 'Enter' && startPurchase()}
          />
          <p className="hint" id="custom-credits-hint">
            Whole credits only, $1.00 each. Custom amounts get no bonus.
          </p>
          {customError && (
            <p className="field-error" role="alert">
              {customError}
            </p>
          )}
        </div>
        {/* One button for the chosen package or the custom amount. */}
        <div className="row-actions" style={{ marginTop: 14 }}>
          <button type="button" className="btn btn-primary btn-large" onClick={startPurchase}>
            Purchase Credits
          </button>
        </div>
      </section>

      <section className="panel" aria-labelledby="history-title">
        <div className="panel-title">
          <h2 id="history-title">Transaction history</h2>
          <span className="hint">Last {CREDIT_HISTORY_LIMIT} transactions</span>
        </div>
        {entries === null ? (
          <Spinner label="Loading transactions..." />
        ) : entries.length === 0 ? (
          <p className="muted">No transactions yet.</p>
        ) : (
          <div className="table-wrap">
            <table className="ledger">
              <thead>
                <tr>
                  <th scope="col">Date</th>
                  <th scope="col">Type</th>
                  <th scope="col">Details</th>
                  <th scope="col" className="num">
                    Amount
                  </th>
                  <th scope="col" className="num">
                    Balance
                  </th>
                </tr>
              </thead>
              <tbody>
                {entries.map((entry) => (
                  <tr key={entry.entryId} className={entry.status === 'processing' ? 'processing' : undefined}>
                    <td>{formatDateTime(entry.timestamp)}</td>
                    <td>
                      {TYPE_LABELS[entry.type] ?? entry.type}
                      {entry.status === 'processing' && <span className="badge badge-yellow" style={{ marginLeft: 6 }}>processing</span>}
                    </td>
                    <td className="muted">{entry.sceneId ? (getScene(entry.sceneId)?.title ?? `Scene ${entry.sceneId}`) : entry.type === 'purchase' || entry.type === 'chargeback' || entry.type === 'payment_credit' ? 'Card payment' : '—'}</td>
                    <td className={`num ${entry.amount >= 0 ? 'positive' : 'negative'}`}>
                      {entry.amount >= 0 ? '+' : '−'}
                      {formatCredits(Math.abs(entry.amount))}
                    </td>
                    <td className="num">{formatCredits(entry.balance)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>

      {purchasing !== null && <PurchaseModal credits={purchasing} onClose={() => setPurchasing(null)} onPaid={() => paid(purchasing)} />}
    </div>
  );
}
