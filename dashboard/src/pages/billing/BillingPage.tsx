// The account's billing: plan, status, period and limits; usage per day; changing plan (checkout), the
// portal, cancel; for operators, the plan requests to decide.
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { api } from '../../api/client';
import { useSession } from '../../api/session';
import { formatUsd, TimeAgo } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';
import { Loaded } from '../../components/states';
import { useApi } from '../../hooks/useApi';
import { ConfirmButton } from '../../components/ConfirmButton';
import { PlanChoices } from './PlanChoices';
import { PlanRequestsPanel } from './PlanRequestsPanel';
import { ReturnNotice } from './ReturnNotice';
import type { Pricing, Subscription, UsageHistory } from './types';
import { UsageChart } from './UsageChart';
import './billing.css';

const limit = (value: number | null) => (value === null ? 'unlimited' : String(value));

export default function BillingPage() {
  const [params] = useSearchParams();
  const session = useSession();
  const subscription = useApi((signal) => api.get<Subscription>('/v1/billing/subscription', signal), [], { pollMs: 30_000 });
  const usage = useApi((signal) => api.get<UsageHistory>('/v1/billing/usage', signal), [], { pollMs: 60_000 });
  const pricing = useApi((signal) => api.get<Pricing>('/v1/pricing', signal), []);
  const [message, setMessage] = useState<string | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);

  const changed = async () => {
    await Promise.all([subscription.reload(), session.refresh()]);
  };

  async function openPortal() {
    setActionError(null);
    try {
      window.location.assign((await api.post<{ url: string }>('/v1/billing/portal', {})).url);
    } catch (caught) {
      setActionError((caught as Error).message);
    }
  }

  return (
    <>
      <PageTitle title="Billing" />
      <Loaded state={subscription}>
        {(current) => (
          <>
            <ReturnNotice params={params} subscription={current} />
            <section className="panel" aria-labelledby="plan-heading">
              <h2 id="plan-heading">Current plan</h2>
              <dl className="facts">
                <dt>Plan</dt>
                <dd data-testid="current-plan">{current.plan}</dd>
                <dt>Status</dt>
                <dd>
                  <span className={`status status-${current.status}`}>{current.status.replace('_', ' ')}</span>
                  {current.cancel_at_period_end && current.effective_at && (
                    <>
                      {' '}
                      · ends <TimeAgo iso={current.effective_at} />
                    </>
                  )}
                  {current.grace_ends_at && (
                    <>
                      {' '}
                      · payment due, grace ends <TimeAgo iso={current.grace_ends_at} />
                    </>
                  )}
                </dd>
                <dt>Period</dt>
                <dd>
                  {new Date(current.current_period_start).toLocaleDateString()} – {new Date(current.current_period_end).toLocaleDateString()}
                </dd>
                <dt>Sandboxes at once</dt>
                <dd>{limit(current.limits.concurrent_sandboxes)}</dd>
                <dt>Compute hours</dt>
                <dd>
                  {current.usage.compute_hours.toFixed(2)} of {limit(current.limits.compute_hours_per_month)} this period
                </dd>
                <dt>Requests a minute</dt>
                <dd>{current.limits.requests_per_minute}</dd>
                <dt>Cost this period</dt>
                <dd>
                  {formatUsd(current.usage.total_cost_usd)} (compute {formatUsd(current.usage.compute_cost_usd)}, LLM {formatUsd(current.usage.llm_cost_usd)})
                </dd>
                {current.pending_request && (
                  <>
                    <dt>Plan request</dt>
                    <dd>
                      {current.pending_request.plan}, <span className="status status-pending">pending</span> since <TimeAgo iso={current.pending_request.created_at} />
                    </dd>
                  </>
                )}
              </dl>
              <div className="billing-actions">
                {current.provider === 'stripe' && (
                  <button type="button" onClick={() => void openPortal()}>
                    Manage payment (portal)
                  </button>
                )}
                {((current.plan !== 'free' && !current.cancel_at_period_end) || current.pending_request) && (
                  <ConfirmButton
                    label={current.plan === 'free' ? 'Withdraw plan request' : 'Cancel plan'}
                    confirmLabel={current.plan === 'free' ? 'Yes, withdraw' : 'Yes, cancel'}
                    question={current.plan === 'free' ? 'The request is withdrawn now.' : 'The plan holds until the end of this period, then the free plan applies.'}
                    onConfirm={async () => {
                      const answer = await api.post<{ effective_at: string }>('/v1/billing/cancel', {});
                      setMessage(`Canceled: effective ${new Date(answer.effective_at).toLocaleString()}.`);
                      await changed();
                    }}
                  />
                )}
              </div>
              <div aria-live="polite">
                {message && <p>{message}</p>}
                {actionError && (
                  <p className="form-error" role="alert">
                    {actionError}
                  </p>
                )}
              </div>
            </section>
            <section className="panel" aria-labelledby="usage-heading">
              <h2 id="usage-heading">Usage by day</h2>
              <Loaded state={usage} empty={<p>No days in this period yet.</p>} isEmpty={(history) => history.days.length === 0}>
                {(history) => <UsageChart days={history.days} />}
              </Loaded>
            </section>
            <Loaded state={pricing}>{(plans) => <PlanChoices pricing={plans} subscription={current} onChanged={changed} />}</Loaded>
            {current.operator && <PlanRequestsPanel />}
          </>
        )}
      </Loaded>
    </>
  );
}
