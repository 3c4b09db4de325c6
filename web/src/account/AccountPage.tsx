/** /profile (labelled Account): tabs 'Account' and 'Payments & Credits'. */
import { useId, useRef, type KeyboardEvent } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { LOGOUT_FAILED } from '#shared/messages';
import { formatCredits } from '../components/Layout';
import { PageLoading, formatDateTime, useTimeoutFlag } from '../components/ui';
import { useSession } from '../lib/session';
import { useNotify } from '../lib/toasts';
import { ChangePasswordForm } from './ChangePasswordForm';
import { CreditsPanel } from './CreditsPanel';
import { ApiKeysPanel } from '../developer/ApiKeysPanel';
import { NotifySwitch } from './NotifySwitch';

export const PROFILE_LOADING_TIMEOUT_MS = 3000;

const TABS = [
  { id: 'account', label: 'Account' },
  { id: 'credits', label: 'Payments & Credits' },
] as const;
type TabId = (typeof TABS)[number]['id'];

export default function AccountPage() {
  const { user, profile, signOut } = useSession();
  const navigate = useNavigate();
  const notify = useNotify();
  const [params, setParams] = useSearchParams();
  const tab: TabId = params.get('tab') === 'credits' ? 'credits' : 'account';
  const timedOut = useTimeoutFlag(PROFILE_LOADING_TIMEOUT_MS, !profile);
  const baseId = useId();
  const tabRefs = useRef<(HTMLButtonElement | null)[]>([]);

  if (!profile && !timedOut) return <PageLoading label="Loading your profile..." />;
  const email = profile?.email ?? user?.email ?? '';

  const select = (id: TabId) => setParams(id === 'account' ? {} : { tab: id }, { replace: true });
  const onKeyDown = (event: KeyboardEvent, index: number) => {
    if (event.key !== 'ArrowRight' && event.key !== 'ArrowLeft') return;
    const next = (index + (event.key === 'ArrowRight' ? 1 : TABS.length - 1)) % TABS.length;
    select(TABS[next].id);
    tabRefs.current[next]?.focus();
  };
  const logOut = async () => {
    try {
      await signOut();
      navigate('/');
    } catch {
      notify(LOGOUT_FAILED, 'error');
    }
  };

  return (
    <section className="container page">
      <div className="account-head">
        <div className="avatar" aria-hidden="true">
          {email.slice(0, 1).toUpperCase()}
        </div>
        <div>
          <h1 style={{ margin: 0 }}>Account</h1>
          <p className="muted" style={{ margin: 0 }}>
            {email}
          </p>
        </div>
      </div>
      <div className="tabs" role="tablist" aria-label="Account sections">
        {TABS.map((item, index) => (
          <button
            key={item.id}
            ref={(element) => {
              tabRefs.current[index] = element;
            }}
            type="button"
            role="tab"
            id={`${baseId}-tab-${item.id}`}
            aria-selected={tab === item.id}
            aria-controls={`${baseId}-panel-${item.id}`}
            tabIndex={tab === item.id ? 0 : -1}
            className="tab"
            onClick={() => select(item.id)}
            onKeyDown={(event) => onKeyDown(event, index)}
          >
            {item.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`${baseId}-panel-${tab}`} aria-labelledby={`${baseId}-tab-${tab}`} tabIndex={0}>
        {tab === 'account' ? (
          <>
          <div className="account-grid">
            <div className="panel">
              <h2>Welcome, {email}!</h2>
              <dl className="details" style={{ marginBottom: 18 }}>
                <div>
                  <dt>Member since</dt>
                  <dd>{formatDateTime(profile?.createdAt)}</dd>
                </div>
                <div>
                  <dt>Last login</dt>
                  <dd>{formatDateTime(profile?.lastLogin ?? undefined)}</dd>
                </div>
                <div>
                  <dt>Credits</dt>
                  <dd>{profile ? formatCredits(profile.credits) : '—'}</dd>
                </div>
                <div>
                  <dt>Email</dt>
                  <dd>{profile?.emailVerified || user?.emailVerified ? 'Verified' : 'Not verified'}</dd>
                </div>
              </dl>
              {profile && (
                <div style={{ marginBottom: 18 }}>
                  <NotifySwitch initial={profile.notifyByEmail} />
                </div>
              )}
              <div className="row-actions">
                <button type="button" className="btn btn-secondary" onClick={() => select('credits')}>
                  Manage Credits
                </button>
                <button type="button" className="btn btn-danger-outline" onClick={() => void logOut()}>
                  Log Out
                </button>
              </div>
            </div>
            <div className="panel">
              <ChangePasswordForm email={email} />
            </div>
          </div>
          {(profile?.emailVerified || user?.emailVerified) && <ApiKeysPanel />}
          </>
        ) : (
          <CreditsPanel />
        )}
      </div>
    </section>
  );
}
