import { useState, type FormEvent } from 'react';
import type { JobView } from '#shared/api-types';
import { REPORT_SENT, reportFailed } from '#shared/messages';
import { MAX_REPORT_LENGTH, reportForm } from '#shared/schemas';
import { Modal } from '../components/Modal';
import { useReportProblem } from '../data/job-mutations';
import { ApiError } from '../lib/api';
import { useNotify } from '../lib/toasts';

/** 'Report Rendering Issue': a description (required), e-mailed to support with the job's data. */
export function ReportDialog({ job, onClose }: { job: JobView; onClose: () => void }) {
  const notify = useNotify();
  const [description, setDescription] = useState('');
  const [error, setError] = useState<string | null>(null);
  const report = useReportProblem();
  const busy = report.isPending;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const parsed = reportForm.safeParse({ description });
    if (!parsed.success) {
      setError(parsed.error.issues[0].message);
      return;
    }
    setError(null);
    try {
      await report.mutateAsync({ job, description: parsed.data.description });
      notify(REPORT_SENT, 'success', { untilDismissed: true });
      onClose();
    } catch (cause) {
      setError(reportFailed(cause instanceof ApiError ? cause.message : String(cause)));
    }
  };

  return (
    <Modal title="Report Rendering Issue" onClose={onClose} dismissable={!busy}>
      <form className="form" onSubmit={submit} noValidate>
        <p className="muted" style={{ margin: 0 }}>
          Tell us what went wrong with job <span className="mono">{job.jobId.slice(0, 8)}</span>. We receive the job&apos;s
          settings with your report.
        </p>
        <div className="field">
          <label htmlFor="report-description">Describe the issue</label>
          <textarea
            id="report-description"
            className="input"
            maxLength={MAX_REPORT_LENGTH}
            value={description}
            aria-invalid={error ? true : undefined}
            onChange={(event) => setDescription(event.target.value)}
            placeholder="For example: the text is cut off at the right edge."
          />
        </div>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <div className="row-actions" style={{ justifyContent: 'flex-end' }}>
          <button type="button" className="btn btn-secondary" onClick={onClose} disabled={busy}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={busy}>
            {busy ? 'Sending...' : 'Submit Report'}
          </button>
        </div>
      </form>
    </Modal>
  );
}
