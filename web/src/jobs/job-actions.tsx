/** Abandon and resume, shared by the job history cards and the incomplete-render banner. */
import { useId, useState } from 'react';
import type { JobView } from '#shared/api-types';
import {
  ABANDON_CONFIRM,
  ABANDON_CONFIRM_TITLE,
  ABANDON_FAILED,
  RESUME_NETWORK_ERROR,
  resumeFailed,
} from '#shared/messages';
import { Modal } from '../components/Modal';
import { useAbandonJob, useResumeJob } from '../data/job-mutations';
import { ApiError } from '../lib/api';
import { useNotify } from '../lib/toasts';

export function ConfirmActionModal({ onCancel, onConfirm, busy }: { onCancel: () => void; onConfirm: () => void; busy?: boolean }) {
  const textId = useId();
  return (
    <Modal
      title={ABANDON_CONFIRM_TITLE}
      size="small"
      onClose={onCancel}
      describedBy={textId}
      footer={
        <>
          <button type="button" className="btn btn-secondary" onClick={onCancel} disabled={busy}>
            Cancel
          </button>
          <button type="button" className="btn btn-danger" onClick={onConfirm} disabled={busy}>
            Confirm
          </button>
        </>
      }
    >
      <p id={textId}>{ABANDON_CONFIRM}</p>
    </Modal>
  );
}

/**
 * Abandon: the server sets status abandoned, abandonedAt and lastActive; the cached
 * list takes the answer at once. A failure of the server call only yields a warning.
 */
export function useJobActions() {
  const notify = useNotify();
  const [confirming, setConfirming] = useState<JobView | null>(null);
  const abandonJob = useAbandonJob();
  const resumeJob = useResumeJob();

  const abandon = async (job: JobView) => {
    try {
      await abandonJob.mutateAsync(job);
    } catch (error) {
      console.warn('Abandon failed', error);
      notify(ABANDON_FAILED, 'error');
    } finally {
      setConfirming(null);
    }
  };

  const resume = async (job: JobView): Promise<boolean> => {
    try {
      await resumeJob.mutateAsync(job);
      notify('Render resumed. It will continue from the frames already finished.', 'success');
      return true;
    } catch (error) {
      if (error instanceof ApiError && error.code === 'network') notify(RESUME_NETWORK_ERROR, 'error');
      else notify(resumeFailed(error instanceof ApiError ? error.message : undefined), 'error');
      return false;
    }
  };

  const busy = abandonJob.isPending || resumeJob.isPending;
  const confirmModal = confirming ? (
    <ConfirmActionModal busy={busy} onCancel={() => setConfirming(null)} onConfirm={() => void abandon(confirming)} />
  ) : null;

  return { askAbandon: setConfirming, resume, busy, confirmModal };
}
