/** Change Password: re-authentication with the current password, then the update. */
import { useEffect, useState, type FormEvent } from 'react';
import { PASSWORD_HINT, PASSWORD_UPDATED, passwordChangeErrorMessage } from '#shared/messages';
import { accountStrengthLabel, passwordStrength } from '#shared/password';
import { changePasswordForm } from '#shared/schemas';
import { Notice, StrengthMeter } from '../components/ui';
import { changePassword, errorCode, reauthenticate } from '../lib/auth';

export const PASSWORD_MESSAGE_MS = 3000;

export function ChangePasswordForm({ email }: { email: string }) {
  const [currentPassword, setCurrent] = useState('');
  const [newPassword, setNew] = useState('');
  const [confirmNewPassword, setConfirm] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [success, setSuccess] = useState(false);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!success) return;
    const timer = window.setTimeout(() => setSuccess(false), PASSWORD_MESSAGE_MS);
    return () => window.clearTimeout(timer);
  }, [success]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    setSuccess(false);
    const parsed = changePasswordForm.safeParse({ currentPassword, newPassword, confirmNewPassword });
    if (!parsed.success) {
      setError(parsed.error.issues[0].message);
      return;
    }
    setBusy(true);
    try {
      await reauthenticate(email, currentPassword);
      await changePassword(currentPassword, newPassword);
      setCurrent('');
      setNew('');
      setConfirm('');
      setSuccess(true);
    } catch (cause) {
      setError(passwordChangeErrorMessage(errorCode(cause)));
    } finally {
      setBusy(false);
    }
  };

  const score = passwordStrength(newPassword);
  return (
    <form className="form" onSubmit={submit} noValidate aria-labelledby="change-password-title">
      <h2 id="change-password-title" style={{ margin: 0 }}>
        Change Password
      </h2>
      <div className="field">
        <label htmlFor="current-password">Current password</label>
        <input id="current-password" className="input" type="password" autoComplete="current-password" value={currentPassword} onChange={(e) => setCurrent(e.target.value)} disabled={busy} />
      </div>
      <div className="field">
        <label htmlFor="new-password">New password</label>
        <input id="new-password" className="input" type="password" autoComplete="new-password" aria-describedby="new-password-hint" value={newPassword} onChange={(e) => setNew(e.target.value)} disabled={busy} />
        {newPassword && <StrengthMeter score={score} label={accountStrengthLabel(score)} />}
        <p className="hint" id="new-password-hint">
          {PASSWORD_HINT}
        </p>
      </div>
      <div className="field">
        <label htmlFor="confirm-new-password">Confirm new password</label>
        <input id="confirm-new-password" className="input" type="password" autoComplete="new-password" value={confirmNewPassword} onChange={(e) => setConfirm(e.target.value)} disabled={busy} />
      </div>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      {success && <Notice kind="success">{PASSWORD_UPDATED}</Notice>}
      <div>
        <button type="submit" className="btn btn-primary" disabled={busy}>
          {busy ? 'Updating...' : 'Update Password'}
        </button>
      </div>
    </form>
  );
}
