/**
 * The 'Coming Soon' gate. The password is a deployment setting,
 * published only as its SHA-256 hash in config.json; the visitor's entry is hashed in
 * the browser and compared. The matched hash is remembered, so the gate is skipped
 * afterwards, and shows again if the password changes.
 */
import { useState, useSyncExternalStore, type FormEvent, type ReactNode } from 'react';
import { onConfig, peekConfig } from '../config';
import { SITE_GATE_INCORRECT, SITE_GATE_PROMPT } from '../../../shared/messages';
import { STORAGE_KEYS, readStorage, writeStorage } from '../lib/storage-keys';
import { LogoMark } from './Icons';

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** The gate's hash once config.json is in; until then the page renders (the first paint does not wait for it). */
export function useSiteGateHash(): string | undefined {
  return useSyncExternalStore(onConfig, () => peekConfig()?.siteGateHash);
}

export function SiteGate({ hash, children }: { hash?: string; children: ReactNode }) {
  const [passedHash, setPassedHash] = useState<string | null>(null);
  const passed = !hash || passedHash === hash || readStorage('local', STORAGE_KEYS.siteGate) === hash;
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  if (passed) return <>{children}</>;

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if ((await sha256Hex(password)) === hash) {
      writeStorage('local', STORAGE_KEYS.siteGate, hash!);
      setPassedHash(hash!);
    } else {
      setError(SITE_GATE_INCORRECT);
    }
  };
  return (
    <main className="gate">
      <form className="gate-card" onSubmit={submit}>
        <LogoMark size={48} />
        <h1>Coming Soon</h1>
        <p>{SITE_GATE_PROMPT}</p>
        <label className="sr-only" htmlFor="gate-password">
          Password
        </label>
        <input
          id="gate-password"
          type="password"
          className="input"
          placeholder="Password"
          autoFocus
          value={password}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? 'gate-error' : undefined}
          onChange={(event) => setPassword(event.target.value)}
        />
        {error && (
          <p id="gate-error" className="field-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="btn btn-primary btn-block">
          Enter
        </button>
      </form>
    </main>
  );
}
