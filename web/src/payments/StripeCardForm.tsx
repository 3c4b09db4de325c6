/** Stripe Elements (AWS mode): its own chunk, loaded only on the payment step. */
import { useMemo, useState, type FormEvent } from 'react';
import { Elements, PaymentElement, useElements, useStripe } from '@stripe/react-stripe-js';
import { loadStripe, type Stripe } from '@stripe/stripe-js';
import { formatUsd } from '#shared/pricing';
import { STRIPE_NOT_INITIALIZED, paymentFailed, paymentFailedWithStatus } from '#shared/messages';
import { getConfig } from '../config';
import type { CardPaymentProps } from './card-payment-props';

let stripePromise: Promise<Stripe | null> | undefined;
function stripe(): Promise<Stripe | null> {
  stripePromise ??= loadStripe(getConfig().stripePublishableKey!);
  return stripePromise;
}

function StripeForm({ ticket, submitLabel, onSucceeded, onBusyChange }: CardPaymentProps) {
  const stripeClient = useStripe();
  const elements = useElements();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (!stripeClient || !elements) {
      setError(STRIPE_NOT_INITIALIZED);
      return;
    }
    setBusy(true);
    onBusyChange?.(true);
    try {
      const result = await stripeClient.confirmPayment({ elements, redirect: 'if_required', confirmParams: { return_url: `${window.location.origin}/job-history` } });
      if (result.error) setError(paymentFailed(result.error.message ?? 'Unknown error'));
      else if (result.paymentIntent?.status !== 'succeeded') setError(paymentFailedWithStatus(result.paymentIntent?.status ?? 'unknown'));
      else onSucceeded();
    } finally {
      setBusy(false);
      onBusyChange?.(false);
    }
  };

  return (
    <form className="card-form" onSubmit={submit}>
      <PaymentElement />
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" className="btn btn-primary btn-block btn-large" disabled={busy || !stripeClient}>
        {busy ? 'Processing payment...' : (submitLabel ?? `Pay ${formatUsd(ticket.amount / 100)}`)}
      </button>
    </form>
  );
}

export default function StripeCardForm(props: CardPaymentProps) {
  const options = useMemo(() => ({ clientSecret: props.ticket.clientSecret, appearance: { theme: 'stripe' as const, variables: { colorPrimary: '#6d28d9', borderRadius: '10px' } } }), [props.ticket.clientSecret]);
  return (
    <Elements stripe={stripe()} options={options}>
      <StripeForm {...props} />
    </Elements>
  );
}
