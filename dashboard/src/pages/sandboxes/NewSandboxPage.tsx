// /sandboxes/new: the create form. Only the fields the user filled are sent, so the server's defaults
// apply to the rest; a refusal shows the API's own message next to the form.
import { useState, type FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { api } from '../../api/client';
import { PageTitle } from '../../components/PageTitle';
import { useApi } from '../../hooks/useApi';
import type { Sandbox, Template } from './types';
import './sandboxes.css';

/** The spec's templates, offered when the server cannot list its own. */
const SPEC_TEMPLATES = ['node-22', 'node-20', 'python-312', 'python-311', 'minimal'];

interface EnvRow {
  key: number;
  name: string;
  value: string;
}

function numberField(form: FormData, name: string): number | undefined {
  const raw = String(form.get(name) ?? '').trim();
  return raw === '' ? undefined : Number(raw);
}

function textField(form: FormData, name: string): string | undefined {
  const raw = String(form.get(name) ?? '').trim();
  return raw === '' ? undefined : raw;
}

function createBody(form: FormData, env: EnvRow[]): Record<string, unknown> {
  const body: Record<string, unknown> = { template: form.get('template') };
  const fields: [string, unknown][] = [
    ['cpus', numberField(form, 'cpus')],
    ['memory_mb', numberField(form, 'memory_mb')],
    ['disk_gb', numberField(form, 'disk_gb')],
    ['network_mode', textField(form, 'network_mode')],
    ['repo', textField(form, 'repo')],
    ['repo_branch', textField(form, 'repo_branch')],
    ['repo_token', textField(form, 'repo_token')],
    ['budget', numberField(form, 'budget')],
    ['timeout', numberField(form, 'timeout')],
  ];
  for (const [name, value] of fields) if (value !== undefined) body[name] = value;
  if (body.network_mode === 'allowlist') {
    body.allowlist = String(form.get('allowlist') ?? '')
      .split(/[\s,]+/)
      .filter(Boolean);
  }
  const filled = env.filter((row) => row.name.trim() !== '');
  if (filled.length) body.env = Object.fromEntries(filled.map((row) => [row.name.trim(), row.value]));
  return body;
}

export default function NewSandboxPage() {
  const navigate = useNavigate();
  const templates = useApi((signal) => api.get<Template[]>('/v1/templates', signal), []);
  const [env, setEnv] = useState<EnvRow[]>([]);
  const [nextKey, setNextKey] = useState(1);
  const [networkMode, setNetworkMode] = useState('full');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // Controlled, so that a template chosen before the server's list arrives stays chosen when it does.
  const [chosenTemplate, setChosenTemplate] = useState<string | null>(null);

  const options = templates.data
    ? templates.data.map((t) => ({ name: t.name, label: t.ready ? `${t.name} — ${t.description}` : `${t.name} (not ready)` }))
    : SPEC_TEMPLATES.map((name) => ({ name, label: name }));
  const template = options.some((option) => option.name === chosenTemplate) ? chosenTemplate! : (options[0]?.name ?? '');

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = await api.post<Sandbox>('/v1/sandboxes', createBody(new FormData(event.currentTarget), env));
      navigate(`/sandboxes/${created.id}`);
    } catch (caught) {
      setError((caught as Error).message);
      setBusy(false);
    }
  }

  const updateEnv = (key: number, change: Partial<EnvRow>) => setEnv((rows) => rows.map((row) => (row.key === key ? { ...row, ...change } : row)));

  return (
    <>
      <PageTitle title="New sandbox" />
      <p>
        <Link to="/sandboxes">Back to sandboxes</Link>
      </p>
      <form className="form sbx-form" onSubmit={submit} aria-describedby={error ? 'create-error' : undefined} noValidate>
        <label>
          Template
          <select name="template" value={template} onChange={(event) => setChosenTemplate(event.target.value)}>
            {options.map((option) => (
              <option key={option.name} value={option.name}>
                {option.label}
              </option>
            ))}
          </select>
        </label>
        <fieldset>
          <legend>Limits</legend>
          <div className="form-row">
            <label>
              CPUs
              <input name="cpus" type="number" inputMode="numeric" placeholder="2" />
            </label>
            <label>
              Memory (MB)
              <input name="memory_mb" type="number" inputMode="numeric" placeholder="512" />
            </label>
            <label>
              Disk (GB)
              <input name="disk_gb" type="number" inputMode="numeric" placeholder="5" />
            </label>
          </div>
        </fieldset>
        <fieldset>
          <legend>Network</legend>
          <label>
            Network mode
            <select name="network_mode" value={networkMode} onChange={(event) => setNetworkMode(event.target.value)}>
              <option value="full">Full Internet access</option>
              <option value="allowlist">Allowlist only</option>
              <option value="none">No network</option>
            </select>
          </label>
          {networkMode === 'allowlist' && (
            <label>
              Allowlist (host names, IPv4 addresses or CIDRs; one per line)
              <textarea name="allowlist" rows={3} />
            </label>
          )}
        </fieldset>
        <fieldset>
          <legend>Environment variables</legend>
          {env.length === 0 && <p className="muted">None.</p>}
          {env.map((row, index) => (
            <div className="sbx-env-row" key={row.key}>
              <label>
                Name {index + 1}
                <input value={row.name} onChange={(event) => updateEnv(row.key, { name: event.target.value })} autoComplete="off" />
              </label>
              <label>
                Value {index + 1}
                <input value={row.value} onChange={(event) => updateEnv(row.key, { value: event.target.value })} autoComplete="off" />
              </label>
              <button type="button" onClick={() => setEnv((rows) => rows.filter((r) => r.key !== row.key))} aria-label={`Remove variable ${index + 1}`}>
                Remove
              </button>
            </div>
          ))}
          <div>
            <button
              type="button"
              onClick={() => {
                setEnv((rows) => [...rows, { key: nextKey, name: '', value: '' }]);
                setNextKey(nextKey + 1);
              }}
            >
              Add variable
            </button>
          </div>
        </fieldset>
        <fieldset>
          <legend>Repository</legend>
          <label>
            Repository URL (https)
            <input name="repo" type="url" placeholder="https://github.com/owner/repo.git" />
          </label>
          <div className="form-row">
            <label>
              Branch
              <input name="repo_branch" placeholder="main" />
            </label>
            <label>
              Access token
              <input name="repo_token" type="password" autoComplete="off" />
            </label>
          </div>
        </fieldset>
        <div className="form-row">
          <label>
            Budget (USD)
            <input name="budget" type="number" step="0.01" inputMode="decimal" />
          </label>
          <label>
            Idle timeout (seconds)
            <input name="timeout" type="number" inputMode="numeric" />
          </label>
        </div>
        {error && (
          <p id="create-error" className="form-error" role="alert">
            {error}
          </p>
        )}
        <div>
          <button type="submit" className="primary" disabled={busy}>
            {busy ? 'Creating…' : 'Create sandbox'}
          </button>
        </div>
      </form>
    </>
  );
}
