/**
 * The sign-in and sign-up cards: title, notices, the e-mail form, its error and submit
 * button, Google, and the link to the other card. One component, so both read and
 * behave alike.
 */
import { useState, type FormEvent, type InputHTMLAttributes, type ReactNode } from 'react';
import { useWebConfig } from '../config';
import { signInWithGoogle } from '../lib/auth';
import { GoogleIcon } from './Icons';

export function GoogleButton({ label, failedMessage, onError }: { label: string; failedMessage: string; onError: (message: string) => void }) {
  // The sign-in page can render before /config.json is in: the button waits for it, disabled.
  const config = useWebConfig();
  const enabled = config?.googleSignIn === true;
  const [busy, setBusy] = useState(false);
  const click = async () => {
    setBusy(true);
    try {
      await signInWithGoogle();
    } catch (error) {
      console.error(error);
      onError(failedMessage);
      setBusy(false);
    }
  };
  return (
    <div className="google">
      <button type="button" className="btn btn-secondary btn-block" disabled={!enabled || busy} onClick={click} aria-describedby={config && !enabled ? 'google-note' : undefined}>
        <GoogleIcon />
        {label}
      </button>
      {config && !enabled && (
        <p id="google-note" className="hint center">
          Google sign-in is not configured for this site.
        </p>
      )}
    </div>
  );
}

/** One labelled input of an auth form; `aside` sits beside the label, `children` below the input. */
export function AuthField({ id, label, aside, children, ...input }: { id: string; label: string; aside?: ReactNode; children?: ReactNode } & InputHTMLAttributes<HTMLInputElement>) {
  const labelElement = <label htmlFor={id}>{label}</label>;
  return (
    <div className="field">
      {aside ? (
        <div className="label-row">
          {labelElement}
          {aside}
        </div>
      ) : (
        labelElement
      )}
      <input id={id} className="input" {...input} />
      {children}
    </div>
  );
}

export interface AuthFormProps {
  title: string;
  intro: string;
  /** Banners above the form (return-URL reason, e-mail verification). */
  notices?: ReactNode;
  onSubmit: (event: FormEvent) => void;
  error: string | null;
  busy: boolean;
  submitLabel: string;
  busyLabel: string;
  google: { label: string; failedMessage: string; onError: (message: string) => void };
  /** The line under the card that leads to the other card. */
  footer: ReactNode;
  children: ReactNode;
}

export function AuthForm({ title, intro, notices, onSubmit, error, busy, submitLabel, busyLabel, google, footer, children }: AuthFormProps) {
  return (
    <section className="auth-page">
      <div className="auth-card">
        <h1>{title}</h1>
        <p className="muted">{intro}</p>
        {notices}
        <form onSubmit={onSubmit} noValidate className="form">
          {children}
          {error && (
            <p className="form-error" role="alert">
              {error}
            </p>
          )}
          <button type="submit" className="btn btn-primary btn-block" disabled={busy}>
            {busy ? busyLabel : submitLabel}
          </button>
        </form>
        <div className="divider">
          <span>or</span>
        </div>
        <GoogleButton {...google} />
        <p className="auth-switch">{footer}</p>
      </div>
    </section>
  );
}
