// /: the account at a glance: sandboxes running and paused, this month's usage against the plan, the
// latest pipeline runs and the open alerts; each card leads to its page.
import type { ReactNode } from 'react';
import { Link } from 'react-router';
import { api, query } from '../../api/client';
import { formatDuration, TimeAgo, Usd } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { ErrorState, Loading } from '../../components/states';
import { useApi, type ApiState } from '../../hooks/useApi';
import { listWithTotal } from '../alerts/listWithTotal';
import type { Alert } from '../alerts/types';
import { loadRecentRuns } from './loadRecentRuns';
import type { SandboxListItem, Subscription } from './types';
import '../alerts/alerts.css';
import './overview.css';

const POLL_MS = 30_000;

export default function OverviewPage() {
  const sandboxes = useApi((signal) => api.get<SandboxListItem[]>(`/v1/sandboxes${query({ limit: 500 })}`, signal), [], { pollMs: POLL_MS });
  const subscription = useApi((signal) => api.get<Subscription>('/v1/billing/subscription', signal), [], { pollMs: 60_000 });
  const alerts = useApi((signal) => listWithTotal<Alert>(`/v1/alerts${query({ resolved: false, limit: 5 })}`, signal), [], { pollMs: POLL_MS });
  const runs = useApi((signal) => loadRecentRuns(5, signal), [], { pollMs: 60_000 });

  return (
    <>
      <PageTitle title="Overview" />
      <div className="overview">
        <section className="card overview-card" aria-labelledby="ov-sandboxes">
          <h2 id="ov-sandboxes">
            <Link to="/sandboxes">Sandboxes</Link>
          </h2>
          <SandboxCounts state={sandboxes} />
        </section>
        <section className="card overview-card" aria-labelledby="ov-usage">
          <h2 id="ov-usage">
            <Link to="/billing">Usage this month</Link>
          </h2>
          <Card state={subscription}>{(s) => <Usage subscription={s} />}</Card>
        </section>
        <section className="card overview-card" aria-labelledby="ov-alerts">
          <h2 id="ov-alerts">
            <Link to="/alerts">Open alerts</Link>
          </h2>
          <Card state={alerts}>
            {({ rows, total }) => (
              <>
                <p className="value" data-testid="open-alerts">
                  {total}
                </p>
                {rows.length === 0 ? (
                  <p className="muted">Nothing needs attention.</p>
                ) : (
                  <ul className="overview-list">
                    {rows.map((alert) => (
                      <li key={alert.id}>
                        <span className={`severity severity-${alert.severity}`}>{alert.severity}</span> {alert.message}{' '}
                        <span className="muted">
                          <TimeAgo iso={alert.created_at} />
                        </span>
                      </li>
                    ))}
                  </ul>
                )}
              </>
            )}
          </Card>
        </section>
        <section className="card overview-card" aria-labelledby="ov-runs">
          <h2 id="ov-runs">
            <Link to="/runs">Recent pipeline runs</Link>
          </h2>
          <Card state={runs}>
            {(rows) =>
              rows.length === 0 ? (
                <p className="muted">
                  No runs yet. <Link to="/pipelines">Pipelines</Link>
                </p>
              ) : (
                <ul className="overview-list" data-testid="recent-runs">
                  {rows.map((run) => (
                    <li key={run.id}>
                      <Link to={`/runs/${run.id}`}>{run.pipeline_name}</Link> <span className={`status status-${run.status}`}>{run.status}</span>{' '}
                      <span className="muted">
                        <TimeAgo iso={run.created_at} />
                        {run.duration_ms !== null && ` · ${formatDuration(run.duration_ms)}`}
                      </span>
                    </li>
                  ))}
                </ul>
              )
            }
          </Card>
        </section>
      </div>
    </>
  );
}

/** A card's content: loading, its error (kept beside stale data), or the data. */
function Card<T>({ state, children }: { state: ApiState<T>; children: (data: T) => ReactNode }) {
  if (state.data === undefined) return state.error ? <ErrorState error={state.error} retry={() => void state.reload()} /> : <Loading />;
  return <>{children(state.data)}</>;
}

function SandboxCounts({ state }: { state: ApiState<SandboxListItem[]> }) {
  return (
    <Card state={state}>
      {(rows) => (
        <div className="counts">
          <div>
            <span className="value" data-testid="running-count">
              {rows.filter((s) => s.status === 'running').length}
            </span>{' '}
            running
          </div>
          <div>
            <span className="value" data-testid="paused-count">
              {rows.filter((s) => s.status === 'paused').length}
            </span>{' '}
            paused
          </div>
        </div>
      )}
    </Card>
  );
}

function Usage({ subscription }: { subscription: Subscription }) {
  const { usage, limits } = subscription;
  const limit = limits.compute_hours_per_month;
  const share = limit ? Math.min(1, usage.compute_hours / limit) : 0;
  return (
    <>
      <p>
        <span className="value" data-testid="compute-hours">
          {usage.compute_hours.toFixed(2)}
        </span>{' '}
        {limit === null ? 'compute hours (no monthly limit)' : `of ${limit} compute hours`}
      </p>
      {limit !== null && (
        <div
          className={share >= 0.8 ? 'usage-bar usage-high' : 'usage-bar'}
          role="progressbar"
          aria-label="Compute hours used"
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={Math.round(share * 100)}
        >
          <span style={{ width: `${share * 100}%` }} />
        </div>
      )}
      <dl className="facts">
        <dt>Plan</dt>
        <dd>
          {subscription.plan} ({subscription.status})
        </dd>
        <dt>Total cost</dt>
        <dd>
          <Usd amount={usage.total_cost_usd} />
        </dd>
        <dt>LLM</dt>
        <dd>
          <Usd amount={usage.llm_cost_usd} />
        </dd>
        <dt>Sandboxes created</dt>
        <dd>{usage.sandboxes_created}</dd>
        <dt>Period ends</dt>
        <dd>
          <TimeAgo iso={subscription.current_period_end} />
        </dd>
      </dl>
    </>
  );
}
