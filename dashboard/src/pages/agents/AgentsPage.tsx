// The account's A2A agents: each registration with its skills, whether it is enabled and public.
import { Link } from 'react-router';
import { api } from '../../api/client';
import { TimeAgo } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { AgentTabs } from './AgentTabs';
import type { Agent } from './types';
import './agents.css';

export default function AgentsPage() {
  const agents = useApi(async (signal) => (await api.get<{ agents: Agent[] }>('/v1/a2a/agents', signal)).agents, [], { pollMs: 30_000 });
  return (
    <>
      <PageTitle title="Agents">
        <Link to="/agents/new" className="button primary">
          Register an agent
        </Link>
      </PageTitle>
      <AgentTabs />
      <Loaded
        state={agents}
        empty={
          <p>
            No agents yet. An agent runs one of your pipelines for each task other agents delegate to it. <Link to="/agents/new">Register one</Link>.
          </p>
        }
      >
        {(list) => (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Skills</th>
                  <th scope="col">State</th>
                  <th scope="col">Version</th>
                  <th scope="col">Registered</th>
                </tr>
              </thead>
              <tbody>
                {list.map((agent) => (
                  <tr key={agent.id}>
                    <td>
                      <Link to={`/agents/${encodeURIComponent(agent.id)}`}>{agent.name}</Link>
                      {agent.description && <div className="muted">{agent.description}</div>}
                    </td>
                    <td>{agent.skills.map((skill) => skill.name).join(', ')}</td>
                    <td>
                      <span className={`status status-${agent.enabled ? 'active' : 'paused'}`}>{agent.enabled ? 'enabled' : 'disabled'}</span> {agent.public ? 'public' : 'private'}
                    </td>
                    <td>{agent.version}</td>
                    <td>
                      <TimeAgo iso={agent.created_at} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </Loaded>
    </>
  );
}
