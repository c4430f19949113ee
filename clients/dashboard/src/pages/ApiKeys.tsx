import { useState, type FormEvent } from 'react';
import { api, unwrap, type Schemas } from '../api/client';
import { Confirm, ErrorNote, formatTime } from '../components/ui';
import { useAction, useLoad } from '../hooks';

/** Settings › API Keys: create (the raw key shown once, with a copy button), list, revoke. */
export default function ApiKeysPage() {
  const keys = useLoad(async () => unwrap(await api.GET('/auth/api-keys')), []);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<Schemas['ApiKeyCreated'] | null>(null);
  const [copied, setCopied] = useState(false);
  const [revoking, setRevoking] = useState<Schemas['ApiKey'] | null>(null);
  const action = useAction();

  const create = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const key = unwrap(await api.POST('/auth/api-keys', { body: { name } }));
      setCreated(key);
      setCopied(false);
      setName('');
      keys.reload();
    });
  };
  const revoke = (key: Schemas['ApiKey']) =>
    action.run(async () => {
      setRevoking(null);
      unwrap(await api.DELETE('/auth/api-keys/{id}', { params: { path: { id: key.id } } }));
      keys.reload();
    });
  const copy = async () => {
    if (!created) return;
    await navigator.clipboard.writeText(created.key).then(
      () => setCopied(true),
      () => setCopied(false),
    );
  };
  const rows = keys.data?.data ?? [];

  return (
    <main id="main">
      <h1>Settings › API Keys</h1>
      <p className="muted">
        API keys let the CLI, the MCP server and your scripts act for you: send <code>Authorization: ApiKey …</code>.
      </p>
      <form className="card" onSubmit={create} aria-label="Create an API key">
        <label htmlFor="key-name">Name of the new key</label>
        <div className="row">
          <input
            id="key-name"
            className="grow"
            required
            maxLength={100}
            value={name}
            onChange={(e) => setName(e.target.value)}
            placeholder="e.g. laptop CLI"
          />
          <button type="submit" className="primary" disabled={action.busy}>
            Create key
          </button>
        </div>
      </form>
      {created && (
        <div className="card" role="status" aria-labelledby="new-key-title">
          <h2 id="new-key-title">Your new key “{created.name}”</h2>
          <p>Copy it now: it is shown only once and cannot be recovered.</p>
          <p className="key" data-testid="raw-key">
            {created.key}
          </p>
          <div className="row">
            <button type="button" onClick={() => void copy()}>
              {copied ? 'Copied' : 'Copy key'}
            </button>
            <button type="button" onClick={() => setCreated(null)}>
              Done
            </button>
          </div>
        </div>
      )}
      <ErrorNote error={action.error ?? keys.error} />
      <table>
        <caption className="skip">Your API keys</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Created</th>
            <th scope="col">Last used</th>
            <th scope="col">State</th>
            <th scope="col">
              <span className="skip">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((key) => (
            <tr key={key.id}>
              <td>{key.name}</td>
              <td>
                <code>{key.prefix}</code>
              </td>
              <td>{formatTime(key.created_at)}</td>
              <td>{key.last_used_at ? formatTime(key.last_used_at) : 'never'}</td>
              <td>{key.revoked_at ? `revoked ${formatTime(key.revoked_at)}` : 'active'}</td>
              <td>
                {!key.revoked_at && (
                  <button type="button" onClick={() => setRevoking(key)} aria-label={`Revoke ${key.name}`}>
                    Revoke
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {rows.length === 0 && !keys.loading && <p className="muted">No API keys yet.</p>}
      <Confirm
        open={revoking !== null}
        title="Revoke this API key?"
        confirmLabel="Revoke key"
        onCancel={() => setRevoking(null)}
        onConfirm={() => revoking && void revoke(revoking)}
      >
        <p>
          Anything using “{revoking?.name}” (<code>{revoking?.prefix}</code>) stops working at once. This cannot be
          undone.
        </p>
      </Confirm>
    </main>
  );
}
