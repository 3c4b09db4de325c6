/**
 * The render flow after the form: Confirm Render Settings → payment → processing, then
 * /job-history. One path creates the job whatever pays for it: a test render and
 * credits start it at once; a card gets its payment ticket back and pays in the
 * modal. Credits go config → processing and back to payment on failure.
 */
import { useRef, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import type { PaymentTicket } from '#shared/api-types';
import type { Scene } from '#shared/catalogue';
import { NO_JOB_ID, PAYMENT_INTENT_FAILED, paymentProcessingError, renderStartFailed } from '#shared/messages';
import { trackRenderStart } from '../analytics';
import { useCreateJob } from '../data/job-mutations';
import { ApiError } from '../lib/api';
import { newIdempotencyKey } from '../lib/idempotency';
import { useSession } from '../lib/session';
import { buildJobRequest, defaultPaymentMethod, type FormState, type PaymentMethod } from './form-state';
import { markUploadSpent } from './kept-upload';

export function useRenderSubmission(scene: Scene, state: FormState, update: (changes: Partial<FormState>) => void, price: number, templateRatio: number | null) {
  const { profile, refreshProfile } = useSession();
  const navigate = useNavigate();
  const createJob = useCreateJob();
  const [confirmOpen, setConfirmOpen] = useState(false);
  const [method, setMethod] = useState<PaymentMethod>('card');
  const [ticket, setTicket] = useState<PaymentTicket | null>(null);
  const [payError, setPayError] = useState<string | null>(null);
  const [startError, setStartError] = useState<string | null>(null);

  // One key per confirmed submission (and payment method): a double click or a retry
  // after a network error reuses it, so the server makes one job and one debit.
  const submissionKeys = useRef<Partial<Record<PaymentMethod, string>>>({});
  const submissionKey = (paymentMethod: PaymentMethod) => (submissionKeys.current[paymentMethod] ??= newIdempotencyKey());

  const started = () => {
    // A paid render deletes its upload once done; a free test leaves it for the paid render that follows.
    if (!state.isTest) markUploadSpent(state.upload?.key);
    trackRenderStart(scene.id);
    navigate('/job-history');
  };

  /** The one way a job is created. */
  const create = async (paymentMethod: PaymentMethod) => {
    setPayError(null);
    const isCard = paymentMethod === 'card' && !state.isTest;
    if (!isCard) update({ formStep: 'processing' });
    try {
      const response = await createJob.mutateAsync({ request: buildJobRequest(scene, state, paymentMethod, templateRatio), idempotencyKey: submissionKey(paymentMethod) });
      if (!response.job?.jobId) throw new Error(NO_JOB_ID);
      if (!isCard) return started();
      if (!response.payment) throw new Error(PAYMENT_INTENT_FAILED);
      setTicket(response.payment);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (state.isTest) {
        update({ formStep: 'config' });
        setStartError(renderStartFailed(message));
      } else if (isCard) {
        setPayError(renderStartFailed(message));
      } else {
        update({ formStep: 'payment' });
        const paymentProblem = !(error instanceof ApiError) || ['insufficient_credits', 'payment_required', 'network'].includes(error.code);
        setPayError(paymentProblem ? paymentProcessingError(message) : renderStartFailed(message));
      }
    }
  };

  const confirm = () => {
    submissionKeys.current = {};
    setConfirmOpen(false);
    if (state.isTest) {
      void create('credits');
      return;
    }
    setMethod(defaultPaymentMethod(profile?.credits, price));
    setTicket(null);
    setPayError(null);
    update({ formStep: 'payment' });
  };

  const closePayment = () => {
    update({ formStep: 'config' });
    setTicket(null);
    setPayError(null);
    if (ticket) navigate('/job-history'); // the job exists, awaiting payment: it can be paid or abandoned there
  };

  const cardPaid = () => {
    update({ formStep: 'processing' });
    void refreshProfile();
    started();
  };

  return {
    confirmOpen,
    openConfirm: () => {
      setStartError(null);
      setConfirmOpen(true);
    },
    cancelConfirm: () => setConfirmOpen(false),
    confirm,
    method,
    setMethod,
    ticket,
    payError,
    startError,
    clearStartError: () => setStartError(null),
    busy: createJob.isPending && state.formStep !== 'processing',
    payWithCredits: () => void create('credits'),
    continueToCard: () => void create('card'),
    cardPaid,
    closePayment,
  };
}
