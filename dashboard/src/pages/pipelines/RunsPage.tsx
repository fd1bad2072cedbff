// /runs: the latest runs of every pipeline, newest first, refreshed while the page is open. The API lists
// runs per pipeline, so this reads the runs of the most recently created pipelines (a bounded number of
// requests per refresh, to stay inside the plan's request rate).
import { useState } from 'react';
import { Link } from 'react-router';
import { api } from '../../api/client';
import { PageTitle } from '../../components/PageTitle';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { RunsTable } from './RunsTable';
import { ACTIVE_RUN_STATUSES, type PipelineListItem, type RunListItem } from './types';
import './pipelines.css';

const PIPELINES_READ = 8;
const RUNS_PER_PIPELINE = 15;

async function latestRuns(signal: AbortSignal): Promise<{ runs: RunListItem[]; pipelines: number }> {
  const pipelines = await api.get<PipelineListItem[]>('/v1/pipelines?limit=100', signal);
  const lists = await Promise.all(pipelines.slice(0, PIPELINES_READ).map((pipeline) => api.get<RunListItem[]>(`/v1/pipelines/${pipeline.id}/runs?limit=${RUNS_PER_PIPELINE}`, signal)));
  const runs = lists.flat().sort((a, b) => b.created_at.localeCompare(a.created_at));
  return { runs, pipelines: pipelines.length };
}

export default function RunsPage() {
  const [filter, setFilter] = useState<'all' | 'active' | 'finished'>('all');
  const state = useApi(latestRuns, [], { pollMs: 20_000 });
  return (
    <>
      <PageTitle title="Runs">
        <label className="inline-label">
          Show
          <select value={filter} onChange={(event) => setFilter(event.target.value as typeof filter)}>
            <option value="all">All runs</option>
            <option value="active">Active (pending, running, paused)</option>
            <option value="finished">Finished</option>
          </select>
        </label>
      </PageTitle>
      <Loaded
        state={state}
        isEmpty={(data) => data.runs.length === 0}
        empty={
          <p>
            No runs yet. Start one from a <Link to="/pipelines">pipeline</Link>.
          </p>
        }
      >
        {(data) => {
          const runs = data.runs.filter((run) => filter === 'all' || ACTIVE_RUN_STATUSES.includes(run.status) === (filter === 'active'));
          return (
            <>
              {data.pipelines > PIPELINES_READ && (
                <p className="muted">
                  Runs of the {PIPELINES_READ} newest pipelines; open a <Link to="/pipelines">pipeline</Link> for the runs of the others.
                </p>
              )}
              {runs.length ? <RunsTable runs={runs} /> : <p className="muted">No {filter} runs.</p>}
            </>
          );
        }}
      </Loaded>
    </>
  );
}
