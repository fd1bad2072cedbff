// One task, live: its status, progress and messages follow the task stream (SSE) as they happen; a task
// waiting for input is answered here.
import { useEffect } from 'react';
import { Link, useParams } from 'react-router';
import { api } from '../../api/client';
import { Id, TimeAgo, Usd } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { ConfirmButton } from '../../components/ConfirmButton';
import { AgentTabs } from './AgentTabs';
import { TaskAnswerForm } from './TaskAnswerForm';
import { ENDED, type Task, type TaskStatus } from './types';
import { useTaskStream, type TaskEvent } from './useTaskStream';
import './agents.css';

/** The task as its latest stream events describe it (the stream is newer than the first read). */
function withEvents(task: Task, events: TaskEvent[]): Task {
  let current = task;
  for (const event of events) {
    if (event.kind === 'status') current = { ...current, status: event.data.status as TaskStatus, status_message: (event.data.message as string | null) ?? null };
    if (event.kind === 'progress') current = { ...current, progress: event.data as Task['progress'] };
    if (event.kind === 'complete') current = { ...current, status: event.data.status as TaskStatus, output: event.data.output };
    if (event.kind === 'error') current = { ...current, status: event.data.status as TaskStatus, status_message: String(event.data.error ?? current.status_message) };
  }
  return current;
}

function describe(event: TaskEvent): string {
  const data = event.data;
  switch (event.kind) {
    case 'status':
      return `${String(data.status).replace('_', ' ')}${data.message ? `: ${String(data.message)}` : ''}`;
    case 'progress':
      return `${Math.floor(Number(data.percentage))}%${data.current_step ? `, ${String(data.current_step)}` : ''}${data.message ? `: ${String(data.message)}` : ''}`;
    case 'message':
      return `${String(data.role)}: ${((data.parts as Record<string, unknown>[]) ?? []).map((part) => (part.type === 'text' ? String(part.text) : JSON.stringify(part.data ?? part.name))).join(' ')}`;
    case 'artifact':
      return `${String(data.name)} (${String(data.mime_type)})`;
    case 'complete':
      return `${String(data.status)}`;
    default:
      return `${String(data.status)}: ${String(data.error)}`;
  }
}

const STREAM_LABEL = { connecting: 'connecting…', live: 'live', ended: 'ended', lost: 'live updates stopped: reload to resume' } as const;

export default function TaskPage() {
  const { id = '' } = useParams();
  const task = useApi((signal) => api.get<Task>(`/v1/a2a/tasks/${encodeURIComponent(id)}`, signal), [id]);
  const stream = useTaskStream(id);
  const ended = stream.state === 'ended';
  const reload = task.reload;
  // The final read brings what events do not carry (cost, artifacts' times, completed_at).
  useEffect(() => {
    if (ended) void reload();
  }, [ended, reload]);

  return (
    <>
      <PageTitle title="Task" />
      <AgentTabs />
      <Loaded state={task}>
        {(first) => {
          const current = withEvents(first, stream.events);
          return (
            <>
              <section className="panel" aria-labelledby="task-heading">
                <h2 id="task-heading">
                  <Id value={current.id} />
                </h2>
                <p className="live muted">Updates: {STREAM_LABEL[stream.state]}</p>
                <dl className="facts">
                  <dt>Status</dt>
                  <dd aria-live="polite">
                    <span className={`status status-${current.status}`} data-testid="task-status">
                      {current.status.replace('_', ' ')}
                    </span>
                    {current.status_message && <> {current.status_message}</>}
                  </dd>
                  <dt>Progress</dt>
                  <dd>
                    <progress className="progress-bar" max={100} value={current.progress.percentage} aria-label="Progress">
                      {Math.floor(current.progress.percentage)}%
                    </progress>{' '}
                    {Math.floor(current.progress.percentage)}%{current.progress.current_step && <>, {current.progress.current_step}</>}
                  </dd>
                  <dt>Agent</dt>
                  <dd>
                    <Link to={`/agents/${encodeURIComponent(current.agent_id)}`}>
                      <code>{current.agent_id}</code>
                    </Link>{' '}
                    · skill {current.skill_id}
                  </dd>
                  <dt>Run</dt>
                  <dd>
                    <code>{current.run_id}</code>
                  </dd>
                  <dt>Cost</dt>
                  <dd>
                    <Usd amount={current.cost_usd} />
                  </dd>
                  <dt>Created</dt>
                  <dd>
                    <TimeAgo iso={current.created_at} />
                  </dd>
                  {current.completed_at && (
                    <>
                      <dt>Ended</dt>
                      <dd>
                        <TimeAgo iso={current.completed_at} />
                      </dd>
                    </>
                  )}
                </dl>
                {!ENDED.includes(current.status) && (
                  <div className="form-row">
                    <ConfirmButton
                      label="Cancel task"
                      confirmLabel="Yes, cancel it"
                      question="Its running stages are stopped."
                      onConfirm={async () => {
                        await api.post(`/v1/a2a/tasks/${encodeURIComponent(current.id)}/cancel`, {});
                      }}
                    />
                  </div>
                )}
              </section>
              {current.status === 'input_needed' && (
                <section className="panel" aria-label="Answer the task">
                  <TaskAnswerForm key={stream.events.length} taskId={current.id} question={current.status_message} />
                </section>
              )}
              <div className="agent-grid">
                <section className="panel" aria-labelledby="input-heading">
                  <h2 id="input-heading">Input and output</h2>
                  <h3>Input</h3>
                  <pre tabIndex={0}>{JSON.stringify(current.input, null, 2)}</pre>
                  <h3>Output</h3>
                  {current.output === null || current.output === undefined ? (
                    <p className="muted">{ENDED.includes(current.status) ? 'None.' : 'None yet.'}</p>
                  ) : (
                    <pre tabIndex={0}>{JSON.stringify(current.output, null, 2)}</pre>
                  )}
                  {current.artifacts.length > 0 && (
                    <>
                      <h3>Artifacts</h3>
                      <ul>
                        {current.artifacts.map((artifact) => (
                          <li key={artifact.id}>
                            <a href={`/v1/a2a/tasks/${encodeURIComponent(current.id)}/artifacts/${encodeURIComponent(artifact.id)}`} download={artifact.name}>
                              {artifact.name}
                            </a>{' '}
                            <span className="muted">{artifact.mime_type}</span>
                          </li>
                        ))}
                      </ul>
                    </>
                  )}
                </section>
                <section className="panel" aria-labelledby="events-heading">
                  <h2 id="events-heading">Events</h2>
                  {stream.events.length === 0 ? (
                    <p className="muted">No events yet.</p>
                  ) : (
                    <ol className="task-events" data-testid="task-events">
                      {stream.events.map((event) => (
                        <li key={event.sequence}>
                          <span className="muted">{event.sequence}</span>
                          <strong>{event.kind}</strong>
                          <span>{describe(event)}</span>
                        </li>
                      ))}
                    </ol>
                  )}
                </section>
              </div>
            </>
          );
        }}
      </Loaded>
    </>
  );
}
