// Runs as a table: status, pipeline, when started, how long, the trigger, and the run's page.
import { Link } from 'react-router';
import { formatDuration, TimeAgo } from '../../components/format';
import { runPath } from './run-path';
import type { RunListItem } from './types';

export function RunsTable({ runs, showPipeline = true }: { runs: RunListItem[]; showPipeline?: boolean }) {
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Status</th>
            {showPipeline && <th scope="col">Pipeline</th>}
            <th scope="col">Started</th>
            <th scope="col">Duration</th>
            <th scope="col">Trigger</th>
            <th scope="col">Run</th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.id}>
              <td>
                <span className={`status status-${run.status}`}>{run.status}</span>
              </td>
              {showPipeline && (
                <td>
                  <Link to={`/pipelines/${run.pipeline_id}`}>{run.pipeline_name}</Link> <span className="muted">v{run.version}</span>
                </td>
              )}
              <td>
                <TimeAgo iso={run.started_at ?? run.created_at} />
              </td>
              <td>{run.duration_ms === null ? '—' : formatDuration(run.duration_ms)}</td>
              <td>{run.trigger}</td>
              <td>
                <Link to={runPath(run)} className="mono">
                  {run.id}
                </Link>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
