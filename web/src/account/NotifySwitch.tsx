/**
 * The account page's "notify me" switch: an e-mail when a render finishes or fails.
 * On by default; the change is saved at once and undone on screen if saving fails.
 */
import { useState } from 'react';
import { useSaveSettings } from '../data/account';
import { useNotify } from '../lib/toasts';

export const NOTIFY_SAVE_FAILED = 'Your e-mail setting could not be saved. Please try again.';

export function NotifySwitch({ initial }: { initial: boolean }) {
  const [on, setOn] = useState(initial);
  const [busy, setBusy] = useState(false);
  const notify = useNotify();
  const save = useSaveSettings();
  // A new saved setting (the profile read again) replaces what the switch shows.
  const [shownInitial, setShownInitial] = useState(initial);
  if (initial !== shownInitial) {
    setShownInitial(initial);
    setOn(initial);
  }
  const toggle = async (next: boolean) => {
    setOn(next);
    setBusy(true);
    try {
      const saved = await save.mutateAsync({ notifyByEmail: next });
      setOn(saved.notifyByEmail);
      notify(saved.notifyByEmail ? 'You will get an e-mail when a render finishes or fails.' : 'Render e-mails are off.', 'success');
    } catch {
      setOn(!next);
      notify(NOTIFY_SAVE_FAILED, 'error');
    } finally {
      setBusy(false);
    }
  };
  return (
    <label className="checkbox switch">
      <input type="checkbox" role="switch" aria-checked={on} checked={on} disabled={busy} onChange={(event) => void toggle(event.target.checked)} />
      <span>
        <strong>E-mail me when a render finishes or fails</strong>
        <br />
        <span className="hint">With a picture of the render and a link to it in your job history.</span>
      </span>
    </label>
  );
}
