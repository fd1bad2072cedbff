// /evals/scenarios/:id: a scenario's command and checks, and its recorded results with their baseline.
import { useParams } from 'react-router';
import { api } from '../../api/client';
import { Id, TimeAgo } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { EvalTabs } from './EvalTabs';
import { ResultsPanel } from './ResultsPanel';
import { RunEvalButton } from './RunEvalButton';
import type { EvalResult, Scenario } from './types';
import './evals.css';

export default function ScenarioPage() {
  const { id = '' } = useParams();
  const scenario = useApi((signal) => api.get<Scenario>(`/v1/evals/scenarios/${id}`, signal), [id]);
  const results = useApi((signal) => api.get<EvalResult[]>(`/v1/evals/scenarios/${id}/results?limit=50`, signal), [id], { pollMs: 30_000 });
  return (
    <>
      <EvalTabs />
      <Loaded state={scenario}>
        {(current) => (
          <>
            <PageTitle title={`Scenario ${current.name}`}>
              <RunEvalButton path={`/v1/evals/scenarios/${id}/run`} onDone={() => void results.reload()} />
            </PageTitle>
            <dl className="facts panel">
              <dt>Id</dt>
              <dd>
                <Id value={current.id} />
              </dd>
              <dt>Description</dt>
              <dd>{current.description || '—'}</dd>
              <dt>Template</dt>
              <dd>{current.template}</dd>
              <dt>Network</dt>
              <dd>{current.network_mode}</dd>
              <dt>Timeout</dt>
              <dd>{current.timeout_seconds} s</dd>
              <dt>Pass threshold</dt>
              <dd>{current.pass_threshold}</dd>
              <dt>Updated</dt>
              <dd>
                <TimeAgo iso={current.updated_at} />
              </dd>
            </dl>
            <h2>Command</h2>
            <pre tabIndex={0}>{current.command}</pre>
            <h2>Checks</h2>
            <pre tabIndex={0}>{JSON.stringify(current.checks, null, 2)}</pre>
          </>
        )}
      </Loaded>
      <h2>Results</h2>
      <ResultsPanel results={results} />
    </>
  );
}
