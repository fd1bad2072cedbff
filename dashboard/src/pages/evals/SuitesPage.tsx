// /evals/suites: the account's eval suites.
import { Link } from 'react-router';
import { api } from '../../api/client';
import { TimeAgo } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { EvalTabs } from './EvalTabs';
import type { Suite } from './types';
import './evals.css';

export default function SuitesPage() {
  const suites = useApi((signal) => api.get<Suite[]>('/v1/evals/suites?limit=100', signal), [], { pollMs: 30_000 });
  return (
    <>
      <PageTitle title="Eval suites" />
      <EvalTabs />
      <Loaded state={suites} empty={<p>No suites yet. Create them with POST /v1/evals/suites (see the API docs).</p>}>
        {(list) => (
          <div className="table-wrap">
            <table>
              <thead>
                <tr>
                  <th scope="col">Suite</th>
                  <th scope="col">Scenarios</th>
                  <th scope="col">Updated</th>
                </tr>
              </thead>
              <tbody>
                {list.map((suite) => (
                  <tr key={suite.id}>
                    <td>
                      <Link to={`/evals/suites/${suite.id}`}>{suite.name}</Link>
                      {suite.description && <div className="muted">{suite.description}</div>}
                    </td>
                    <td>{suite.scenario_ids.length}</td>
                    <td>
                      <TimeAgo iso={suite.updated_at} />
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
