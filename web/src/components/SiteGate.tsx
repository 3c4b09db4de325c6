/**
 * The 'Coming Soon' gate. The password is a deployment setting,
 * published only as its SHA-256 hash in config.json; the visitor's entry is hashed in
 * the browser and compared. The matched hash is remembered, so the gate is skipped
 * afterwards, and shows again if the password changes. The form's code loads only
 * when the gate is on.
 */
import { Suspense, lazy, useState, useSyncExternalStore, type ReactNode } from 'react';
import { onConfig, peekConfig } from '../config';
import { STORAGE_KEYS, readStorage } from '../lib/storage-keys';

const SiteGateForm = lazy(() => import('./SiteGateForm'));

/** The gate's hash once config.json is in; until then the page renders (the first paint does not wait for it). */
export function useSiteGateHash(): string | undefined {
  return useSyncExternalStore(onConfig, () => peekConfig()?.siteGateHash);
}

export function SiteGate({ hash, children }: { hash?: string; children: ReactNode }) {
  const [passedHash, setPassedHash] = useState<string | null>(null);
  const passed = !hash || passedHash === hash || readStorage('local', STORAGE_KEYS.siteGate) === hash;
  if (passed) return <>{children}</>;
  return (
    <Suspense fallback={null}>
      <SiteGateForm hash={hash} onPassed={setPassedHash} />
    </Suspense>
  );
}
