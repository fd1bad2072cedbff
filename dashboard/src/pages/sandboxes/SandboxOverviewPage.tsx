// /sandboxes/:id: what the sandbox is and what it costs, with pause, resume and destroy. Polled every 4 s
// (one fixed period: changing useApi's period restarts it and blanks the page).
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../../api/client';
import { formatDuration, Id, TimeAgo, Usd } from '../../components/format';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { ConfirmButton } from './ConfirmButton';
import { formatMemory } from './format';
import { SandboxPage, useSandboxId } from './SandboxPage';
import type { Sandbox } from './types';

export default function SandboxOverviewPage() {
  const id = useSandboxId();
  const navigate = useNavigate();
  const state = useApi((signal) => api.get<Sandbox>(`/v1/sandboxes/${encodeURIComponent(id)}`, signal), [id], { pollMs: 4_000 });
  const [busy, setBusy] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);

  async function act(name: string, run: () => Promise<unknown>) {
    setBusy(name);
    setActionError(null);
    try {
      await run();
      await state.reload();
    } catch (caught) {
      setActionError((caught as Error).message);
    } finally {
      setBusy(null);
    }
  }

  return (
    <SandboxPage id={id} title="Sandbox">
      <Loaded state={state}>
        {(sandbox) => (
          <>
            <section className="panel" aria-label="Actions">
              <div className="sbx-actions">
                <span className={`status status-${sandbox.status}`} role="status" aria-live="polite" aria-label={`Status: ${sandbox.status}`}>
                  {sandbox.status}
                </span>
                {sandbox.status === 'running' && (
                  <button type="button" disabled={busy !== null} onClick={() => void act('pause', () => api.post(`/v1/sandboxes/${id}/pause`))}>
                    {busy === 'pause' ? 'Pausing…' : 'Pause'}
                  </button>
                )}
                {sandbox.status === 'paused' && (
                  <button type="button" disabled={busy !== null} onClick={() => void act('resume', () => api.post(`/v1/sandboxes/${id}/resume`))}>
                    {busy === 'resume' ? 'Resuming…' : 'Resume'}
                  </button>
                )}
                {sandbox.status !== 'destroyed' && (
                  <ConfirmButton
                    label="Destroy"
                    confirmLabel="Destroy permanently"
                    question="Destroy this sandbox and its files?"
                    disabled={busy !== null}
                    onConfirm={() => void act('destroy', () => api.delete(`/v1/sandboxes/${id}`))}
                  />
                )}
                {sandbox.status === 'destroyed' && (
                  <button type="button" onClick={() => navigate('/sandboxes')}>
                    Back to the list
                  </button>
                )}
              </div>
              {actionError && (
                <p className="form-error" role="alert">
                  {actionError}
                </p>
              )}
              {sandbox.error && (
                <p className="form-error" role="alert">
                  {sandbox.error}
                </p>
              )}
            </section>
            <section className="panel" aria-labelledby="facts-heading">
              <h2 id="facts-heading">Facts</h2>
              <dl className="facts">
                <dt>Id</dt>
                <dd>
                  <Id value={sandbox.id} />
                </dd>
                <dt>Template</dt>
                <dd>{sandbox.template}</dd>
                <dt>Resources</dt>
                <dd>
                  {sandbox.cpus} CPU · {formatMemory(sandbox.memory_mb)} memory · {sandbox.disk_gb} GB disk
                </dd>
                <dt>Network</dt>
                <dd>
                  {sandbox.network_mode}
                  {sandbox.allowlist.length > 0 && `: ${sandbox.allowlist.join(', ')}`}
                  {sandbox.ip && <span className="muted"> ({sandbox.ip})</span>}
                </dd>
                <dt>Runtime</dt>
                <dd>{sandbox.runtime}</dd>
                <dt>Created</dt>
                <dd>
                  <TimeAgo iso={sandbox.created_at} />
                </dd>
                <dt>Last activity</dt>
                <dd>
                  <TimeAgo iso={sandbox.last_activity_at} />
                </dd>
                {sandbox.paused_at && (
                  <>
                    <dt>Paused</dt>
                    <dd>
                      <TimeAgo iso={sandbox.paused_at} />
                    </dd>
                  </>
                )}
                {sandbox.destroyed_at && (
                  <>
                    <dt>Destroyed</dt>
                    <dd>
                      <TimeAgo iso={sandbox.destroyed_at} /> {sandbox.destroyed_reason === 'budget_exceeded' ? '(budget exceeded)' : ''}
                    </dd>
                  </>
                )}
                <dt>Idle timeout</dt>
                <dd>{sandbox.timeout ? formatDuration(sandbox.timeout * 1000) : 'None'}</dd>
                <dt>Spend</dt>
                <dd>
                  <Usd amount={sandbox.spend_usd} />{' '}
                  {sandbox.budget !== null ? (
                    <>
                      of <Usd amount={sandbox.budget} /> budget
                    </>
                  ) : (
                    <span className="muted">(no budget)</span>
                  )}
                  <span className="muted">
                    {' '}
                    — compute <Usd amount={sandbox.compute_cost_usd} />, LLM <Usd amount={sandbox.llm_cost_usd} />
                  </span>
                  {sandbox.budget !== null && <meter className="sbx-meter" min={0} max={sandbox.budget} value={sandbox.spend_usd} high={sandbox.budget * 0.8} aria-label="Spend of budget" />}
                </dd>
                {sandbox.repo && (
                  <>
                    <dt>Repository</dt>
                    <dd className="mono">
                      {sandbox.repo}
                      {sandbox.repo_branch && ` (${sandbox.repo_branch})`}
                    </dd>
                  </>
                )}
                {Object.keys(sandbox.env).length > 0 && (
                  <>
                    <dt>Environment</dt>
                    <dd className="mono">{Object.keys(sandbox.env).join(', ')}</dd>
                  </>
                )}
              </dl>
            </section>
          </>
        )}
      </Loaded>
    </SandboxPage>
  );
}
