/** The account page's API section: keys (created, shown once, revoked) and the webhook signing secret. */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Link } from 'react-router-dom';
import { Notice, formatDateTime } from '../components/ui';
import { developerApi, type ApiKeyView } from '../data/developer-api';

export function ApiKeysPanel() {
  const [keys, setKeys] = useState<ApiKeyView[] | undefined>();
  const [name, setName] = useState('');
  const [created, setCreated] = useState<{ name: string; secret: string } | undefined>();
  const [confirming, setConfirming] = useState<string | undefined>();
  const [signingSecret, setSigningSecret] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const reload = useCallback(
    () =>
      developerApi.apiKeys().then(
        (answer) => setKeys(answer.keys),
        (failure: Error) => setError(failure.message),
      ),
    [],
  );
  useEffect(() => void reload(), [reload]);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const answer = await developerApi.createApiKey(name);
      setCreated({ name: answer.key.name, secret: answer.secret });
      setName('');
      await reload();
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  const revoke = async (keyId: string) => {
    setBusy(true);
    setError(undefined);
    try {
      await developerApi.revokeApiKey(keyId);
      setConfirming(undefined);
      await reload();
    } catch (failure) {
      setError((failure as Error).message);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="panel" style={{ marginTop: 18 }} aria-labelledby="api-keys-title">
      <h2 id="api-keys-title">API keys</h2>
      <p className="muted">
        Render from your own code with the <Link to="/developers">render API</Link>. A key acts as you and spends your credits; keep it secret.
      </p>
      {error && <Notice kind="error" role="alert">{error}</Notice>}
      {created && (
        <Notice kind="success" title={`Key "${created.name}" created`} role="status">
          <p>Copy it now: it is shown only once.</p>
          <code data-testid="new-api-key" style={{ wordBreak: 'break-all' }}>{created.secret}</code>
          <div className="row-actions">
            <button type="button" className="btn btn-secondary" onClick={() => void navigator.clipboard?.writeText(created.secret)}>Copy</button>
            <button type="button" className="btn btn-secondary" onClick={() => setCreated(undefined)}>Done</button>
          </div>
        </Notice>
      )}
      <form onSubmit={(event) => void create(event)} className="row-actions" style={{ alignItems: 'flex-end' }}>
        <label style={{ flex: 1 }}>
          Key name
          <input className="input" value={name} maxLength={60} required onChange={(event) => setName(event.target.value)} placeholder="e.g. production server" />
        </label>
        <button type="submit" className="btn btn-primary" disabled={busy || name.trim() === ''}>Create key</button>
      </form>
      {keys === undefined ? (
        <p className="muted">Loading keys...</p>
      ) : keys.length === 0 ? (
        <p className="muted">No API keys yet.</p>
      ) : (
        <div className="table-wrap"><table className="ledger" aria-label="API keys">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Key</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col"><span className="sr-only">Actions</span></th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => (
              <tr key={key.keyId}>
                <td>{key.name}</td>
                <td><code>{key.hint}…</code></td>
                <td>{formatDateTime(key.createdAt)}</td>
                <td>{key.lastUsedAt ? formatDateTime(key.lastUsedAt) : 'Never'}</td>
                <td>
                  {confirming === key.keyId ? (
                    <button type="button" className="btn btn-danger-outline" disabled={busy} onClick={() => void revoke(key.keyId)}>Confirm revoke {key.name}</button>
                  ) : (
                    <button type="button" className="btn btn-secondary" onClick={() => setConfirming(key.keyId)}>Revoke {key.name}</button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table></div>
      )}
      <h3>Webhook signing secret</h3>
      <p className="muted">Each webhook carries a <code>Render-Signature</code> header signed with this secret; check it before trusting the body.</p>
      {signingSecret ? (
        <code data-testid="signing-secret" style={{ wordBreak: 'break-all' }}>{signingSecret}</code>
      ) : (
        <button type="button" className="btn btn-secondary" onClick={() => void developerApi.webhookSecret().then((answer) => setSigningSecret(answer.secret), (failure: Error) => setError(failure.message))}>
          Show signing secret
        </button>
      )}
    </div>
  );
}
