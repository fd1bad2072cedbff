// The account's tasks, newest first, by status and agent.
import { Link, useSearchParams } from 'react-router';
import { api, query } from '../../api/client';
import { PageTitle } from '../../components/PageTitle';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { AgentTabs } from './AgentTabs';
import { TaskTable } from './TaskTable';
import { TASK_STATUSES, type Agent, type TaskList } from './types';
import './agents.css';

const PAGE = 25;

export default function TasksPage() {
  const [params, setParams] = useSearchParams();
  const status = params.get('status') ?? '';
  const agentId = params.get('agent_id') ?? '';
  const offset = Number(params.get('offset') ?? 0) || 0;
  const tasks = useApi((signal) => api.get<TaskList>(`/v1/a2a/tasks${query({ status, agent_id: agentId, limit: PAGE, offset })}`, signal), [status, agentId, offset], { pollMs: 15_000 });
  const agents = useApi(async (signal) => (await api.get<{ agents: Agent[] }>('/v1/a2a/agents', signal)).agents, []);
  const names = new Map((agents.data ?? []).map((agent) => [agent.id, agent.name]));

  const set = (key: string, value: string) => {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    next.delete('offset');
    setParams(next);
  };

  return (
    <>
      <PageTitle title="Agents" />
      <AgentTabs />
      <div className="form-row task-filters">
        <label>
          Status
          <select value={status} onChange={(event) => set('status', event.target.value)}>
            <option value="">Any</option>
            {TASK_STATUSES.map((value) => (
              <option key={value} value={value}>
                {value.replace('_', ' ')}
              </option>
            ))}
          </select>
        </label>
        <label>
          Agent
          <select value={agentId} onChange={(event) => set('agent_id', event.target.value)}>
            <option value="">Any</option>
            {(agents.data ?? []).map((agent) => (
              <option key={agent.id} value={agent.id}>
                {agent.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      <Loaded state={tasks} empty={<p>No tasks{status || agentId ? ' match these filters' : ' yet: tasks appear when an agent is given one'}.</p>} isEmpty={(list) => list.tasks.length === 0}>
        {(list) => (
          <>
            <TaskTable tasks={list.tasks} agentNames={names} />
            <p className="form-row">
              <span className="muted">
                {list.offset + 1}–{list.offset + list.tasks.length} of {list.total}
              </span>
              {list.offset > 0 && <Link to={`?${new URLSearchParams({ ...Object.fromEntries(params), offset: String(Math.max(list.offset - PAGE, 0)) })}`}>Newer</Link>}
              {list.offset + list.tasks.length < list.total && <Link to={`?${new URLSearchParams({ ...Object.fromEntries(params), offset: String(list.offset + PAGE) })}`}>Older</Link>}
            </p>
          </>
        )}
      </Loaded>
    </>
  );
}
