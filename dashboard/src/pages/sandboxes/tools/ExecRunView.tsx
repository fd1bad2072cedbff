// One run of the command runner: its command, its output (stderr marked), and how it ended.
import { formatDuration, TimeAgo } from '../../../components/format';
import type { ExecStreamLine } from './types';

export interface ExecRun {
  id: number;
  command: string;
  cwd?: string;
  startedAt: string;
  output: { stream: 'stdout' | 'stderr'; text: string }[];
  exit?: Extract<ExecStreamLine, { type: 'exit' }>;
  error?: string;
}

function Outcome({ run }: { run: ExecRun }) {
  if (run.error) return <span className="status status-error">{run.error}</span>;
  if (!run.exit) return <span className="status status-running">running</span>;
  const { exit_code, duration_ms, timed_out, truncated, error } = run.exit;
  return (
    <>
      <span className={`status ${exit_code === 0 ? 'status-succeeded' : 'status-failed'}`} data-testid="exit-code">
        exit {exit_code}
      </span>
      {duration_ms !== undefined && <span className="muted"> in {formatDuration(duration_ms)}</span>}
      {timed_out && <span className="muted"> · timed out</span>}
      {truncated && <span className="muted"> · output cut at 1 MiB</span>}
      {error && <span className="muted"> · {error}</span>}
    </>
  );
}

export function ExecRunView({ run }: { run: ExecRun }) {
  return (
    <article className="panel exec-run" aria-label={`Run of ${run.command}`}>
      <header className="exec-run-header">
        <code className="exec-run-command">$ {run.command}</code>
        <span className="exec-run-meta">
          <Outcome run={run} /> · <TimeAgo iso={run.startedAt} />
          {run.cwd && <span className="muted"> · in {run.cwd}</span>}
        </span>
      </header>
      {run.output.length > 0 ? (
        <pre className="exec-output" tabIndex={0} aria-label="Output">
          {run.output.map((block, index) => (
            <span key={index} className={`exec-${block.stream}`} data-stream={block.stream}>
              {block.text}
            </span>
          ))}
        </pre>
      ) : (
        run.exit && <p className="muted">No output.</p>
      )}
    </article>
  );
}
