/** The gate's password form: the entry is hashed in the browser and compared with the published hash. */
import { useState, type FormEvent } from 'react';
import { SITE_GATE_INCORRECT, SITE_GATE_PROMPT } from '#shared/messages';
import { STORAGE_KEYS, writeStorage } from '../lib/storage-keys';
import { LogoMark } from './Icons';

export async function sha256Hex(text: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((byte) => byte.toString(16).padStart(2, '0')).join('');
}

export default function SiteGateForm({ hash, onPassed }: { hash: string; onPassed: (hash: string) => void }) {
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if ((await sha256Hex(password)) === hash) {
      writeStorage('local', STORAGE_KEYS.siteGate, hash);
      onPassed(hash);
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
