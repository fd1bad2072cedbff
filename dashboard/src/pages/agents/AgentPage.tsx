// One agent: its registration and skills, its public card, enable/disable and public/private, its
// recent tasks, delete.
import { useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { api, query } from '../../api/client';
import { Id, TimeAgo, Usd } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { ConfirmButton } from '../../components/ConfirmButton';
import { AgentCardPanel } from './AgentCardPanel';
import { AgentTabs } from './AgentTabs';
import { SkillList } from './SkillList';
import { TaskTable } from './TaskTable';
import type { Agent, TaskList } from './types';
import './agents.css';

export default function AgentPage() {
  const { id = '' } = useParams();
  const navigate = useNavigate();
  const agent = useApi((signal) => api.get<Agent>(`/v1/a2a/agents/${encodeURIComponent(id)}`, signal), [id], { pollMs: 30_000 });
  const tasks = useApi((signal) => api.get<TaskList>(`/v1/a2a/tasks${query({ agent_id: id, limit: 10 })}`, signal), [id], { pollMs: 15_000 });
  const [error, setError] = useState<string | null>(null);

  async function change(body: Partial<Pick<Agent, 'enabled' | 'public'>>) {
    setError(null);
    try {
      agent.setData(await api.put<Agent>(`/v1/a2a/agents/${encodeURIComponent(id)}`, body));
    } catch (caught) {
      setError((caught as Error).message);
    }
  }

  return (
    <>
      <PageTitle title={agent.data?.name ?? 'Agent'} />
      <AgentTabs />
      <Loaded state={agent}>
        {(value) => (
          <>
            <div className="agent-grid">
              <section className="panel" aria-labelledby="registration-heading">
                <h2 id="registration-heading">Registration</h2>
                {value.description && <p>{value.description}</p>}
                <dl className="facts">
                  <dt>Id</dt>
                  <dd>
                    <Id value={value.id} />
                  </dd>
                  <dt>State</dt>
                  <dd>
                    <span className={`status status-${value.enabled ? 'active' : 'paused'}`}>{value.enabled ? 'enabled' : 'disabled'}</span> · {value.public ? 'public' : 'private'}
                  </dd>
                  <dt>Endpoint</dt>
                  <dd>
                    <code>{value.url}</code>
                  </dd>
                  <dt>Pipeline</dt>
                  <dd>
                    <Link to={`/pipelines/${encodeURIComponent(value.pipeline_id)}`}>
                      <code>{value.pipeline_id}</code>
                    </Link>
                    {value.template && <> · template {value.template}</>}
                  </dd>
                  <dt>Limits</dt>
                  <dd>
                    {value.rate_limit_rpm} tasks a minute
                    {value.max_cost_per_task !== null && (
                      <>
                        , at most <Usd amount={value.max_cost_per_task} /> a task
                      </>
                    )}
                  </dd>
                  <dt>Version</dt>
                  <dd>
                    {value.version}, changed <TimeAgo iso={value.updated_at} />
                  </dd>
                </dl>
                <div className="form-row agent-actions">
                  <button type="button" onClick={() => void change({ enabled: !value.enabled })}>
                    {value.enabled ? 'Disable' : 'Enable'}
                  </button>
                  <button type="button" onClick={() => void change({ public: !value.public })}>
                    {value.public ? 'Make private' : 'Make public'}
                  </button>
                  <ConfirmButton
                    label="Delete"
                    name={`Delete agent ${value.name}`}
                    confirmLabel="Yes, delete"
                    question="Its card leaves discovery; its tasks run to their end."
                    onConfirm={async () => {
                      await api.delete(`/v1/a2a/agents/${encodeURIComponent(value.id)}`);
                      navigate('/agents');
                    }}
                  />
                </div>
                {error && (
                  <p className="form-error" role="alert">
                    {error}
                  </p>
                )}
              </section>
              <section className="panel" aria-labelledby="skills-heading">
                <h2 id="skills-heading">Skills</h2>
                <SkillList skills={value.skills} />
              </section>
            </div>
            <AgentCardPanel agent={value} />
          </>
        )}
      </Loaded>
      <h2>Recent tasks</h2>
      <Loaded state={tasks} empty={<p>No tasks yet.</p>} isEmpty={(list) => list.tasks.length === 0}>
        {(list) => (
          <>
            <TaskTable tasks={list.tasks} />
            {list.total > list.tasks.length && (
              <p>
                <Link to={`/agents/tasks?agent_id=${encodeURIComponent(id)}`}>All {list.total} tasks</Link>
              </p>
            )}
          </>
        )}
      </Loaded>
    </>
  );
}
