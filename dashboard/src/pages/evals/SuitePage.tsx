// /evals/suites/:id: a suite's scenarios in order, and its recorded results with their baseline.
import { Link, useParams } from 'react-router';
import { api } from '../../api/client';
import { Id, TimeAgo } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { EvalTabs } from './EvalTabs';
import { ResultsPanel } from './ResultsPanel';
import { RunEvalButton } from './RunEvalButton';
import type { EvalResult, Scenario, Suite } from './types';
import './evals.css';

export default function SuitePage() {
  const { id = '' } = useParams();
  const suite = useApi((signal) => api.get<Suite>(`/v1/evals/suites/${id}`, signal), [id]);
  const scenarios = useApi((signal) => api.get<Scenario[]>('/v1/evals/scenarios?limit=100', signal), []);
  const results = useApi((signal) => api.get<EvalResult[]>(`/v1/evals/suites/${id}/results?limit=50`, signal), [id], { pollMs: 30_000 });
  const names = new Map((scenarios.data ?? []).map((scenario) => [scenario.id, scenario.name]));
  return (
    <>
      <EvalTabs />
      <Loaded state={suite}>
        {(current) => (
          <>
            <PageTitle title={`Suite ${current.name}`}>
              <RunEvalButton path={`/v1/evals/suites/${id}/run`} onDone={() => void results.reload()} />
            </PageTitle>
            <dl className="facts panel">
              <dt>Id</dt>
              <dd>
                <Id value={current.id} />
              </dd>
              <dt>Description</dt>
              <dd>{current.description || '—'}</dd>
              <dt>Updated</dt>
              <dd>
                <TimeAgo iso={current.updated_at} />
              </dd>
            </dl>
            <h2>Scenarios, in run order</h2>
            <ol className="panel suite-scenarios">
              {current.scenario_ids.map((scenarioId) => (
                <li key={scenarioId}>
                  <Link to={`/evals/scenarios/${scenarioId}`}>{names.get(scenarioId) ?? scenarioId}</Link>
                </li>
              ))}
            </ol>
          </>
        )}
      </Loaded>
      <h2>Results</h2>
      <ResultsPanel results={results} />
    </>
  );
}
