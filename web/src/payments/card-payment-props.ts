/** What both card forms (the local test form and Stripe Elements) take: their own module, so neither imports the other. */
import type { PaymentTicket } from '#shared/api-types';

export interface CardPaymentProps {
  ticket: PaymentTicket;
  submitLabel?: string;
  onSucceeded: () => void;
  onBusyChange?: (busy: boolean) => void;
}
