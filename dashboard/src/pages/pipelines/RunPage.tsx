// /runs/:id?pipeline=…: a run's DAG coloured by live stage status (read every few seconds while the run
// is active), approval, each stage's attempts and logs, the run state and the timeline.
import { useRef, useState } from 'react';
import { Link, useParams, useSearchParams } from 'react-router';
import { api, ApiError } from '../../api/client';
import { formatDuration, Id, TimeAgo, Usd } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { ErrorState, Loading } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { ApprovalPanel } from './ApprovalPanel';
import { DagView } from './DagView';
import { findRunPipeline } from './find-run';
import { RunStatePanel } from './RunStatePanel';
import { RunTimeline } from './RunTimeline';
import { StageDetail } from './StageDetail';
import { ACTIVE_RUN_STATUSES, type PipelineVersion, type Run } from './types';
import './pipelines.css';

const LIVE_POLL_MS = 2_500;

export default function RunPage() {
  const { id = '' } = useParams();
  const [search] = useSearchParams();
  const given = search.get('pipeline');
  const found = useApi((signal) => findRunPipeline(id, signal), [id], { enabled: !given });
  const pipelineId = given ?? found.data ?? null;
  if (!pipelineId) return found.error ? <ErrorState error={found.error} /> : <Loading label="Finding the run…" />;
  return <RunView pipelineId={pipelineId} runId={id} />;
}

function RunView({ pipelineId, runId }: { pipelineId: string; runId: string }) {
  const runPath = `/v1/pipelines/${pipelineId}/runs/${runId}`;
  const last = useRef<Run | undefined>(undefined);
  const [selected, setSelected] = useState<string | null>(null);
  const [cancelProblem, setCancelProblem] = useState<string | null>(null);
  const active = last.current ? ACTIVE_RUN_STATUSES.includes(last.current.status) : true;
  const state = useApi((signal) => api.get<Run>(runPath, signal), [runPath], { pollMs: active ? LIVE_POLL_MS : undefined });
  if (state.data) last.current = state.data;
  const run = state.data ?? last.current;
  const definition = useApi((signal) => api.get<PipelineVersion>(`/v1/pipelines/${pipelineId}/versions/${run!.version}`, signal), [pipelineId, run?.version], { enabled: run !== undefined });

  if (!run) return state.error ? <ErrorState error={state.error} retry={() => void state.reload()} /> : <Loading />;

  const statuses = Object.fromEntries(run.stages.map((stage) => [stage.name, stage.status]));
  const waiting = run.stages.find((stage) => stage.status === 'paused_approval');
  const waitingDefinition = waiting ? definition.data?.stages.find((stage) => stage.name === waiting.name) : undefined;
  const selectedStage = run.stages.find((stage) => stage.name === selected);
  const costUsd = run.stages.reduce((sum, stage) => sum + stage.cost_usd, 0);
  const isActive = ACTIVE_RUN_STATUSES.includes(run.status);

  const cancel = async () => {
    setCancelProblem(null);
    try {
      await api.post(`${runPath}/cancel`);
      await state.reload();
    } catch (caught) {
      setCancelProblem(caught instanceof ApiError ? caught.message : String(caught));
    }
  };

  return (
    <>
      <PageTitle title={`Run of ${run.pipeline_name}`}>
        {isActive && (
          <button type="button" className="danger" onClick={() => void cancel()}>
            Cancel run
          </button>
        )}
      </PageTitle>
      {cancelProblem && (
        <p className="form-error" role="alert">
          {cancelProblem}
        </p>
      )}
      {state.error && <ErrorState error={state.error} retry={() => void state.reload()} />}
      <dl className="facts panel">
        <dt>Status</dt>
        <dd>
          <span className={`status status-${run.status}`} data-testid="run-status" aria-live="polite">
            {run.status}
          </span>
          {run.error && <span className="form-error"> {run.error}</span>}
        </dd>
        <dt>Run</dt>
        <dd>
          <Id value={run.id} />
        </dd>
        <dt>Pipeline</dt>
        <dd>
          <Link to={`/pipelines/${run.pipeline_id}?version=${run.version}`}>{run.pipeline_name}</Link> v{run.version}
        </dd>
        <dt>Started</dt>
        <dd>
          <TimeAgo iso={run.started_at ?? run.created_at} /> ({run.trigger})
        </dd>
        <dt>Duration</dt>
        <dd>{run.duration_ms === null ? '—' : formatDuration(run.duration_ms)}</dd>
        <dt>Stage cost</dt>
        <dd>
          <Usd amount={costUsd} />
        </dd>
        {(run.input.repo || run.input.branch) && (
          <>
            <dt>Repository</dt>
            <dd>
              {run.input.repo ?? '—'} {run.input.branch && <code>{run.input.branch}</code>}
            </dd>
          </>
        )}
        {Object.keys(run.input.env).length > 0 && (
          <>
            <dt>Environment</dt>
            <dd>
              {Object.entries(run.input.env).map(([key, value]) => (
                <div key={key}>
                  <code>
                    {key}={value}
                  </code>
                </div>
              ))}
            </dd>
          </>
        )}
        {run.session_id && (
          <>
            <dt>Session</dt>
            <dd>
              <Link to={`/sessions/${run.session_id}`}>{run.session_id}</Link>
            </dd>
          </>
        )}
      </dl>
      {waiting && (
        <ApprovalPanel
          key={waiting.id}
          runPath={runPath}
          stage={waiting}
          message={typeof waitingDefinition?.config?.message === 'string' ? waitingDefinition.config.message : null}
          onDecided={() => void state.reload()}
        />
      )}
      <h2>Stages</h2>
      {definition.data ? (
        <DagView stages={definition.data.stages} statuses={statuses} selected={selected} onSelect={setSelected} label={`Stages of the run, by status`} />
      ) : definition.error ? (
        <ErrorState error={definition.error} />
      ) : (
        <Loading />
      )}
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Stage</th>
              <th scope="col">Type</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Duration</th>
              <th scope="col">Cost</th>
            </tr>
          </thead>
          <tbody>
            {run.stages.map((stage) => (
              <tr key={stage.id}>
                <td>
                  <button type="button" className="link" aria-pressed={selected === stage.name} onClick={() => setSelected(stage.name)}>
                    {stage.name}
                  </button>
                </td>
                <td>{stage.type}</td>
                <td>
                  <span className={`status status-${stage.status}`}>{stage.status.replace('_', ' ')}</span>
                </td>
                <td>{stage.attempt}</td>
                <td>{stage.duration_ms === null ? '—' : formatDuration(stage.duration_ms)}</td>
                <td>
                  <Usd amount={stage.cost_usd} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {selectedStage ? <StageDetail runPath={runPath} stage={selectedStage} /> : <p className="muted">Select a stage for its attempts, logs and results.</p>}
      <h2>State</h2>
      <RunStatePanel runPath={runPath} active={isActive} changedAt={run.updated_at} />
      <h2>Timeline</h2>
      <RunTimeline runPath={runPath} changedAt={run.updated_at} />
    </>
  );
}
