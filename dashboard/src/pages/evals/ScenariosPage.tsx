// /evals: the account's eval scenarios.
import { Link } from 'react-router';
import { api } from '../../api/client';
import { TimeAgo } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { EvalTabs } from './EvalTabs';
import type { Scenario } from './types';
import './evals.css';

export default function ScenariosPage() {
  const scenarios = useApi((signal) => api.get<Scenario[]>('/v1/evals/scenarios?limit=100', signal), [], { pollMs: 30_000 });
  return (
    <>
      <PageTitle title="Evals" />
      <EvalTabs />
      <Loaded state={scenarios} empty={<p>No scenarios yet. Create them with POST /v1/evals/scenarios (see the API docs).</p>}>
        {(list) => (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Scenario</th>
                  <th scope="col">Template</th>
                  <th scope="col">Checks</th>
                  <th scope="col">Pass threshold</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {list.map((scenario) => (
                  <tr key={scenario.id}>
                    <td>
                      <Link to={`/evals/scenarios/${scenario.id}`}>{scenario.name}</Link>
                      {scenario.description && <div className="muted">{scenario.description}</div>}
                    </td>
                    <td>{scenario.template}</td>
                    <td>{scenario.checks.length}</td>
                    <td>{scenario.pass_threshold}</td>
                    <td>
                      <TimeAgo iso={scenario.updated_at} />
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
