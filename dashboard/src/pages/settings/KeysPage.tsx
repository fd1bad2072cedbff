// The account's API keys: create one (its value shown once, here, until the page is left), list the
// active ones by name and prefix, revoke.
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { CopyButton, TimeAgo } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { ConfirmButton } from '../../components/ConfirmButton';
import { SettingsTabs } from './SettingsTabs';
import type { ApiKey, CreatedKey, KeyScope } from './types';
import './settings.css';

const SCOPES: [KeyScope, string][] = [
  ['full', 'Full: everything'],
  ['sandbox', 'Sandbox: sandboxes, files, exec, terminals, snapshots'],
  ['read', 'Read: reading sandboxes and sessions'],
];
const EXPIRIES: [string, string][] = [
  ['', 'Never'],
  ['7', 'In 7 days'],
  ['30', 'In 30 days'],
  ['90', 'In 90 days'],
  ['365', 'In a year'],
];

export default function KeysPage() {
  const keys = useApi((signal) => api.get<ApiKey[]>('/v1/account/keys', signal), [], { pollMs: 30_000 });
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function create(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const days = String(form.get('expires'));
    setBusy(true);
    setError(null);
    try {
      const key = await api.post<CreatedKey>('/v1/account/keys', {
        name: String(form.get('name')),
        scope: String(form.get('scope')),
        ...(days ? { expires_at: new Date(Date.now() + Number(days) * 86_400_000).toISOString() } : {}),
      });
      setCreated(key);
      formElement.reset();
      await keys.reload();
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <PageTitle title="Settings" />
      <SettingsTabs />
      <section className="panel" aria-labelledby="new-key-heading">
        <h2 id="new-key-heading">Create an API key</h2>
        <form className="settings-form" onSubmit={(event) => void create(event)}>
          <label>
            Name
            <input name="name" required maxLength={100} autoComplete="off" />
          </label>
          <label>
            Scope
            <select name="scope" defaultValue="full">
              {SCOPES.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <label>
            Expires
            <select name="expires" defaultValue="">
              {EXPIRIES.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" className="primary" disabled={busy}>
            Create key
          </button>
        </form>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
      </section>
      {created && (
        <section className="panel new-key" aria-labelledby="created-key-heading" aria-live="polite">
          <h2 id="created-key-heading">New key “{created.name}”</h2>
          <p>This is the only time the key is shown: copy it now. Paddock keeps only its digest.</p>
          <p className="secret-once">
            <code data-testid="created-api-key">{created.key}</code> <CopyButton value={created.key} label="Copy key" />
          </p>
          <button type="button" onClick={() => setCreated(null)}>
            I have stored it
          </button>
        </section>
      )}
      <h2>Active keys</h2>
      <Loaded state={keys} empty={<p>No active keys.</p>}>
        {(list) => (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Scope</th>
                  <th scope="col">Prefix</th>
                  <th scope="col">Created</th>
                  <th scope="col">Last used</th>
                  <th scope="col">Expires</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {list.map((key) => (
                  <tr key={key.id}>
                    <td>{key.name}</td>
                    <td>{key.scope}</td>
                    <td>
                      <code>{key.prefix}…</code>
                    </td>
                    <td>
                      <TimeAgo iso={key.created_at} />
                    </td>
                    <td>{key.last_used_at ? <TimeAgo iso={key.last_used_at} /> : <span className="muted">never</span>}</td>
                    <td>{key.expires_at ? <TimeAgo iso={key.expires_at} /> : <span className="muted">never</span>}</td>
                    <td>
                      <ConfirmButton
                        label="Revoke"
                        name={`Revoke key ${key.name}`}
                        confirmLabel="Yes, revoke"
                        question="Programs using it stop working at once."
                        onConfirm={async () => {
                          await api.delete(`/v1/account/keys/${encodeURIComponent(key.id)}`);
                          if (created?.id === key.id) setCreated(null);
                          await keys.reload();
                        }}
                      />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
    </>
  );
}
