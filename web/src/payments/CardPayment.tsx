/**
 * The card step of a payment (renders and credit purchases). In local payment mode a
 * local test form talks to /api/payments/local/confirm; on AWS, Stripe Elements is
 * loaded lazily, only when this step is shown.
 */
import { Suspense, lazy, useState, type FormEvent } from 'react';
import { formatUsd } from '#shared/pricing';
import { paymentFailed } from '#shared/messages';
import { Notice, Spinner } from '../components/ui';
import { useConfirmLocalPayment } from '../data/job-mutations';
import { ApiError } from '../lib/api';
import type { CardPaymentProps } from './card-payment-props';

const StripeCardForm = lazy(() => import('./StripeCardForm'));

export const LOCAL_TEST_MODE_NOTE =
  'Local test mode — no real payment is taken. Use 4242 4242 4242 4242 (succeeds) or 4000 0000 0000 0002 (declined).';

export function CardPayment(props: CardPaymentProps) {
  if (props.ticket.mode === 'local') return <LocalCardForm {...props} />;
  return (
    <Suspense fallback={<Spinner label="Loading secure card form..." />}>
      <StripeCardForm {...props} />
    </Suspense>
  );
}

function formatCardNumber(value: string): string {
  return value
    .replace(/\D/g, '')
    .slice(0, 16)
    .replace(/(\d{4})(?=\d)/g, '$1 ');
}

function formatExpiry(value: string): string {
  const digits = value.replace(/\D/g, '').slice(0, 4);
  return digits.length > 2 ? `${digits.slice(0, 2)}/${digits.slice(2)}` : digits;
}

export function LocalCardForm({ ticket, submitLabel, onSucceeded, onBusyChange }: CardPaymentProps) {
  const [cardNumber, setCardNumber] = useState('');
  const [expiry, setExpiry] = useState('');
  const [cvc, setCvc] = useState('');
  const [error, setError] = useState<string | null>(null);
  const confirm = useConfirmLocalPayment();
  const busy = confirm.isPending;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    onBusyChange?.(true);
    try {
      await confirm.mutateAsync({ paymentId: ticket.paymentId, cardNumber: cardNumber.replace(/\s/g, ''), expiry: expiry || undefined, cvc: cvc || undefined });
      onSucceeded();
    } catch (cause) {
      setError(paymentFailed(cause instanceof ApiError ? cause.message : 'Unknown error'));
    } finally {
      onBusyChange?.(false);
    }
  };

  return (
    <form className="card-form" onSubmit={submit} noValidate>
      <Notice kind="info" title="Test mode">
        <span className="test-mode">{LOCAL_TEST_MODE_NOTE}</span>
      </Notice>
      <div className="field">
        <label htmlFor="card-number">Card number</label>
        <input
          id="card-number"
          className="input mono"
          inputMode="numeric"
          autoComplete="cc-number"
          placeholder="1234 1234 1234 1234"
          value={cardNumber}
          onChange={(e) => setCardNumber(formatCardNumber(e.target.value))}
          disabled={busy}
          data-autofocus
        />
      </div>
      <div className="card-row">
        <div className="field">
          <label htmlFor="card-expiry">Expiry (MM/YY)</label>
          <input id="card-expiry" className="input mono" inputMode="numeric" autoComplete="cc-exp" placeholder="12/34" value={expiry} onChange={(e) => setExpiry(formatExpiry(e.target.value))} disabled={busy} />
        </div>
        <div className="field">
          <label htmlFor="card-cvc">CVC</label>
          <input id="card-cvc" className="input mono" inputMode="numeric" autoComplete="cc-csc" placeholder="123" maxLength={4} value={cvc} onChange={(e) => setCvc(e.target.value.replace(/\D/g, '').slice(0, 4))} disabled={busy} />
        </div>
      </div>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" className="btn btn-primary btn-block btn-large" disabled={busy || cardNumber.replace(/\s/g, '').length < 12}>
        {busy ? 'Processing payment...' : (submitLabel ?? `Pay ${formatUsd(ticket.amount / 100)}`)}
      </button>
    </form>
  );
}
