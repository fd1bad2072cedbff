// Starts a run of a pipeline with what POST /v1/pipelines/:id/runs takes: env pairs, a repo and a branch.
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { api, ApiError } from '../../api/client';
import { runPath } from './run-path';
import type { Run } from './types';

interface EnvPair {
  key: string;
  value: string;
}

export function StartRunForm({ pipelineId }: { pipelineId: string }) {
  const navigate = useNavigate();
  const [env, setEnv] = useState<EnvPair[]>([{ key: '', value: '' }]);
  const [repo, setRepo] = useState('');
  const [branch, setBranch] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const change = (index: number, field: keyof EnvPair, value: string) => setEnv(env.map((pair, i) => (i === index ? { ...pair, [field]: value } : pair)));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    const body: { env?: Record<string, string>; repo?: string; branch?: string } = {};
    const pairs = env.filter((pair) => pair.key.trim());
    if (pairs.length) body.env = Object.fromEntries(pairs.map((pair) => [pair.key.trim(), pair.value]));
    if (repo.trim()) body.repo = repo.trim();
    if (branch.trim()) body.branch = branch.trim();
    setBusy(true);
    setProblem(null);
    try {
      const run = await api.post<Run>(`/v1/pipelines/${pipelineId}/runs`, body);
      navigate(runPath(run));
    } catch (caught) {
      setProblem(caught instanceof ApiError ? caught.message : String(caught));
      setBusy(false);
    }
  };

  return (
    <form className="form wide-form" onSubmit={(event) => void submit(event)}>
      <fieldset className="form">
        <legend>Environment</legend>
        {env.map((pair, index) => (
          <div className="env-row" key={index}>
            <label>
              Name {index + 1}
              <input value={pair.key} onChange={(event) => change(index, 'key', event.target.value)} placeholder="DEPLOY_TARGET" />
            </label>
            <label>
              Value {index + 1}
              <input value={pair.value} onChange={(event) => change(index, 'value', event.target.value)} />
            </label>
            {env.length > 1 && (
              <button type="button" aria-label={`Remove variable ${index + 1}`} onClick={() => setEnv(env.filter((_, i) => i !== index))}>
                Remove
              </button>
            )}
          </div>
        ))}
        <div>
          <button type="button" onClick={() => setEnv([...env, { key: '', value: '' }])}>
            Add variable
          </button>
        </div>
      </fieldset>
      <div className="form-row">
        <label>
          Repository (https URL)
          <input type="url" value={repo} onChange={(event) => setRepo(event.target.value)} placeholder="https://github.com/owner/repo" />
        </label>
        <label>
          Branch
          <input value={branch} onChange={(event) => setBranch(event.target.value)} placeholder="main" />
        </label>
      </div>
      {problem && (
        <p className="form-error" role="alert">
          {problem}
        </p>
      )}
      <div>
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Starting…' : 'Start run'}
        </button>
      </div>
    </form>
  );
}
