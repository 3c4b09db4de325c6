/** 'Verify your email to render', with a resend button: shown to a signed-in, unverified user. */
import { useState } from 'react';
import { VERIFY_EMAIL_TO_RENDER, verificationEmailFailed } from '#shared/messages';
import { Notice } from '../components/ui';
// Amplify loads when the button is pressed, not with the customise page.
import { loadAuth } from '../lib/auth-loader';

export function VerificationNotice({ email }: { email: string }) {
  const [state, setState] = useState<'idle' | 'sent' | string>('idle');
  return (
    <Notice
      kind="warning"
      title={VERIFY_EMAIL_TO_RENDER}
      actions={
        state !== 'sent' && (
          <button
            type="button"
            className="btn btn-secondary btn-small"
            onClick={() =>
              loadAuth().then((auth) =>
                auth.resendVerificationEmail(email).then(
                  () => setState('sent'),
                  (error) => setState(verificationEmailFailed(auth.errorMessage(error))),
                ),
              )
            }
          >
            Resend verification email
          </button>
        )
      }
    >
      {state === 'sent' ? 'Verification email sent!' : state === 'idle' ? 'Open the link in the email we sent you, then come back here.' : state}
    </Notice>
  );
}
