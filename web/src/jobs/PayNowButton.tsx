/** A job whose card step was closed or declined can be paid from its card: the same card form, reopened. */
import type { JobView } from '#shared/api-types';
import { paymentProcessingError } from '#shared/messages';
import { formatUsd } from '#shared/pricing';
import { Modal } from '../components/Modal';
import { useJobPaymentTicket } from '../data/job-mutations';
import { ApiError } from '../lib/api';
import { useNotify } from '../lib/toasts';
import { CardPayment } from '../payments/CardPayment';

export function PayNowButton({ job }: { job: JobView }) {
  const notify = useNotify();
  const ticket = useJobPaymentTicket();
  const open = () =>
    ticket.mutate(job, { onError: (cause) => notify(paymentProcessingError(cause instanceof ApiError ? cause.message : 'Unknown error'), 'error') });
  return (
    <>
      <button type="button" className="btn btn-primary btn-small" disabled={ticket.isPending} onClick={open}>
        Pay {formatUsd(job.estimatedPrice)} by Card
      </button>
      {ticket.data && (
        <Modal title="Payment for Render" onClose={() => ticket.reset()}>
          <CardPayment ticket={ticket.data} submitLabel={`Pay ${formatUsd(job.estimatedPrice)} & Render`} onSucceeded={() => ticket.reset()} />
        </Modal>
      )}
    </>
  );
}
