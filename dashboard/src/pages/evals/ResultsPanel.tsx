// Recorded results of a scenario or suite, newest first, with the baseline a pipeline eval stage would
// compare against (the mean score of the newest results) and each scenario's checks on demand.
import { Link } from 'react-router';
import { formatDuration, TimeAgo, Usd } from '../../components/format';
import { Loaded } from '../../components/states';
import type { ApiState } from '../../hooks/useApi';
import type { EvalResult } from './types';

const BASELINE_COUNT = 5;

function percent(value: number): string {
  return `${Math.round(value * 1000) / 10}%`;
}

export function ResultsPanel({ results }: { results: ApiState<EvalResult[]> }) {
  return (
    <Loaded state={results} empty={<p>No results yet: run it, or let a pipeline eval stage run it.</p>}>
      {(list) => {
        const recent = list.slice(0, BASELINE_COUNT);
        const baseline = recent.reduce((sum, result) => sum + result.score, 0) / recent.length;
        return (
          <>
            <div className="cards">
              <div className="card">
                <div className="muted">Baseline score (mean of the newest {recent.length})</div>
                <div className="value">{percent(baseline)}</div>
              </div>
              <div className="card">
                <div className="muted">Latest</div>
                <div className="value">
                  <span className={`status status-${list[0].status}`}>{list[0].status}</span>
                </div>
              </div>
            </div>
            <div className="table-wrap">
              <table>
                <thead>
                  <tr>
                    <th scope="col">When</th>
                    <th scope="col">Status</th>
                    <th scope="col">Pass rate</th>
                    <th scope="col">Score</th>
                    <th scope="col">Cost</th>
                    <th scope="col">Duration</th>
                    <th scope="col">Source</th>
                    <th scope="col">Scenarios</th>
                  </tr>
                </thead>
                <tbody>
                  {list.map((result) => (
                    <tr key={result.id}>
                      <td>
                        <TimeAgo iso={result.created_at} />
                      </td>
                      <td>
                        <span className={`status status-${result.status}`}>{result.status}</span>
                      </td>
                      <td>{percent(result.pass_rate)}</td>
                      <td>{percent(result.score)}</td>
                      <td>
                        <Usd amount={result.cost_usd} />
                      </td>
                      <td>{formatDuration(result.duration_ms)}</td>
                      <td>{result.source === 'pipeline' && result.pipeline_run_id ? <Link to={`/runs/${result.pipeline_run_id}`}>pipeline · {result.stage_name}</Link> : result.source}</td>
                      <td>
                        <details>
                          <summary>{result.scenarios.length} checked</summary>
                          {result.scenarios.map((scenario) => (
                            <div key={scenario.scenario_id} className="eval-scenario-result">
                              <strong>{scenario.name}</strong> <span className={`status status-${scenario.status}`}>{scenario.status}</span> {percent(scenario.score)}
                              {scenario.error && <p className="form-error">{scenario.error}</p>}
                              <ul>
                                {scenario.checks.map((check, index) => (
                                  <li key={index}>
                                    {check.passed ? '✓' : '✗'} {check.type}: expected <code>{check.expected}</code>, got <code>{check.actual}</code>
                                  </li>
                                ))}
                              </ul>
                            </div>
                          ))}
                        </details>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        );
      }}
    </Loaded>
  );
}
