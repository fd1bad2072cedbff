// The account's secrets by name: set one (the value goes in and never comes back), list, delete.
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client';
import { TimeAgo } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { ConfirmButton } from '../../components/ConfirmButton';
import { SettingsTabs } from './SettingsTabs';
import type { Secret } from './types';
import './settings.css';

export default function SecretsPage() {
  const secrets = useApi((signal) => api.get<Secret[]>('/v1/secrets', signal), [], { pollMs: 30_000 });
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function save(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const formElement = event.currentTarget;
    const form = new FormData(formElement);
    const name = String(form.get('name'));
    setBusy(true);
    setError(null);
    setSaved(null);
    try {
      await api.put(`/v1/secrets/${encodeURIComponent(name)}`, { value: String(form.get('value')) });
      formElement.reset();
      setSaved(name);
      await secrets.reload();
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
      <section className="panel" aria-labelledby="new-secret-heading">
        <h2 id="new-secret-heading">Set a secret</h2>
        <p className="muted">
          A sandbox that names a secret gets it as an environment variable of that name. The value is stored encrypted and never shown again; setting an existing name replaces its value.
        </p>
        <form className="settings-form" onSubmit={(event) => void save(event)}>
          <label>
            Name
            <input name="name" required maxLength={128} pattern="[A-Za-z_][A-Za-z0-9_]*" title="Letters, digits and _, not starting with a digit" autoComplete="off" />
          </label>
          <label>
            Value
            <input name="value" type="password" required maxLength={32768} autoComplete="new-password" />
          </label>
          <button type="submit" className="primary" disabled={busy}>
            Save secret
          </button>
        </form>
        <div aria-live="polite">
          {error && (
            <p className="form-error" role="alert">
              {error}
            </p>
          )}
          {saved && <p>Saved {saved}.</p>}
        </div>
      </section>
      <h2>Secrets</h2>
      <Loaded state={secrets} empty={<p>No secrets yet.</p>}>
        {(list) => (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Created</th>
                  <th scope="col">Updated</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {list.map((secret) => (
                  <tr key={secret.name}>
                    <td>
                      <code>{secret.name}</code>
                    </td>
                    <td>
                      <TimeAgo iso={secret.created_at} />
                    </td>
                    <td>
                      <TimeAgo iso={secret.updated_at} />
                    </td>
                    <td>
                      <ConfirmButton
                        label="Delete"
                        name={`Delete secret ${secret.name}`}
                        confirmLabel="Yes, delete"
                        question="Running sandboxes keep their copy."
                        onConfirm={async () => {
                          await api.delete(`/v1/secrets/${encodeURIComponent(secret.name)}`);
                          setSaved(null);
                          await secrets.reload();
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
