// One stage of a run: its record, the approval decision or gate/eval result, and every attempt's logs.
import { api } from '../../api/client';
import { formatDuration, TimeAgo, Usd } from '../../components/format';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import type { StageLogs, StageRecord } from './types';

export function StageDetail({ runPath, stage }: { runPath: string; stage: StageRecord }) {
  const running = stage.status === 'running';
  const logs = useApi((signal) => api.get<StageLogs>(`${runPath}/stages/${encodeURIComponent(stage.name)}/logs`, signal), [runPath, stage.name, stage.status, stage.attempt], {
    pollMs: running ? 10_000 : undefined,
  });
  return (
    <section className="panel stage-detail" aria-labelledby="stage-detail-title">
      <h2 id="stage-detail-title">
        Stage {stage.name} <span className={`status status-${stage.status}`}>{stage.status.replace('_', ' ')}</span>
      </h2>
      <dl className="facts">
        <dt>Type</dt>
        <dd>{stage.type}</dd>
        <dt>Attempt</dt>
        <dd>{stage.attempt}</dd>
        <dt>Started</dt>
        <dd>
          <TimeAgo iso={stage.started_at} />
        </dd>
        <dt>Duration</dt>
        <dd>{stage.duration_ms === null ? '—' : formatDuration(stage.duration_ms)}</dd>
        <dt>Exit code</dt>
        <dd>{stage.exit_code ?? '—'}</dd>
        <dt>Cost</dt>
        <dd>
          <Usd amount={stage.cost_usd} />
        </dd>
        {stage.next_attempt_at && (
          <>
            <dt>Next attempt</dt>
            <dd>
              <TimeAgo iso={stage.next_attempt_at} />
            </dd>
          </>
        )}
        {stage.error && (
          <>
            <dt>Error</dt>
            <dd>{stage.error}</dd>
          </>
        )}
        {stage.approval?.decision && (
          <>
            <dt>Decision</dt>
            <dd data-testid="approval-decision">
              <span className={`status status-${stage.approval.decision === 'approve' ? 'succeeded' : 'failed'}`}>{stage.approval.decision}</span> by {stage.approval.decided_by ?? '—'}{' '}
              <TimeAgo iso={stage.approval.decided_at} />
            </dd>
            <dt>Comment</dt>
            <dd>{stage.approval.comment || <span className="muted">—</span>}</dd>
          </>
        )}
      </dl>
      {stage.gate_result !== undefined && stage.gate_result !== null && (
        <>
          <h3>{stage.type === 'eval' ? 'Eval result' : 'Gate result'}</h3>
          <pre>{JSON.stringify(stage.gate_result, null, 2)}</pre>
        </>
      )}
      <h3>Attempts and logs</h3>
      <Loaded state={logs} isEmpty={(data) => data.attempts.length === 0} empty={<p>No attempts: this stage has not run a command.</p>}>
        {(data) =>
          data.attempts.map((attempt) => (
            <details key={attempt.attempt} open={attempt.attempt === data.attempts.length}>
              <summary>
                Attempt {attempt.attempt}: <span className={`status status-${attempt.status}`}>{attempt.status}</span>
                {attempt.exit_code !== null && ` exit ${attempt.exit_code}`} · <TimeAgo iso={attempt.started_at} />
              </summary>
              {attempt.error && <p className="form-error">{attempt.error}</p>}
              <h4>stdout</h4>
              <pre tabIndex={0}>{attempt.stdout || '(empty)'}</pre>
              <h4>stderr</h4>
              <pre tabIndex={0}>{attempt.stderr || '(empty)'}</pre>
            </details>
          ))
        }
      </Loaded>
    </section>
  );
}
