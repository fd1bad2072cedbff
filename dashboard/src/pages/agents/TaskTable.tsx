import { Link } from 'react-router';
import { TimeAgo, Usd } from '../../components/format';
import type { Task } from './types';

export function TaskTable({ tasks, agentNames }: { tasks: Task[]; agentNames?: Map<string, string> }) {
  return (
    <div className="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">Task</th>
            {agentNames && <th scope="col">Agent</th>}
            <th scope="col">Skill</th>
            <th scope="col">Status</th>
            <th scope="col">Progress</th>
            <th scope="col">Cost</th>
            <th scope="col">Created</th>
          </tr>
        </thead>
        <tbody>
          {tasks.map((task) => (
            <tr key={task.id}>
              <td>
                <Link to={`/agents/tasks/${encodeURIComponent(task.id)}`}>
                  <code>{task.id}</code>
                </Link>
              </td>
              {agentNames && <td>{agentNames.get(task.agent_id) ?? <code>{task.agent_id}</code>}</td>}
              <td>{task.skill_id}</td>
              <td>
                <span className={`status status-${task.status}`}>{task.status.replace('_', ' ')}</span>
              </td>
              <td>{Math.floor(task.progress.percentage)}%</td>
              <td>
                <Usd amount={task.cost_usd} />
              </td>
              <td>
                <TimeAgo iso={task.created_at} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
