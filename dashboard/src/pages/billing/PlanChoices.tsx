// The plans of this server side by side; choosing a paid one checks out: a plan request for an operator
// (manual provider) or a trip to the payment processor's checkout page (Stripe).
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { api } from '../../api/client';
import { formatUsd } from '../../components/format';
import type { CheckoutAnswer, PlanName, Pricing, Subscription } from './types';

const unlimited = (value: number | null, unit: string) => (value === null ? `Unlimited ${unit}` : `${value} ${unit}`);

export function PlanChoices({ pricing, subscription, onChanged }: { pricing: Pricing; subscription: Subscription; onChanged(): Promise<void> }) {
  const navigate = useNavigate();
  const [busy, setBusy] = useState<PlanName | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function choose(plan: PlanName) {
    setBusy(plan);
    setError(null);
    try {
      const answer = await api.post<CheckoutAnswer>('/v1/billing/checkout', { plan });
      if (answer.status === 'open') {
        window.location.assign(answer.url);
        return;
      }
      await onChanged();
      navigate(`/billing?request=${encodeURIComponent(answer.request_id ?? '')}`);
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(null);
    }
  }

  return (
    <section className="panel" aria-labelledby="plans-heading">
      <h2 id="plans-heading">Plans</h2>
      <div className="plan-choices">
        {pricing.plans.map((plan) => {
          const current = plan.plan === subscription.plan;
          const requested = subscription.pending_request?.plan === plan.plan;
          return (
            <div key={plan.plan} className={current ? 'plan-choice current' : 'plan-choice'}>
              <h3>{plan.plan}</h3>
              <p className="value">{plan.price_usd_per_month === null ? 'Custom price' : `${formatUsd(plan.price_usd_per_month)} / month`}</p>
              <p className="muted">{plan.description}</p>
              <ul>
                <li>{unlimited(plan.concurrent_sandboxes, 'sandboxes at once')}</li>
                <li>{unlimited(plan.compute_hours_per_month, 'compute hours a month')}</li>
                <li>{plan.requests_per_minute} requests a minute</li>
              </ul>
              {current ? (
                <strong>Your plan</strong>
              ) : requested ? (
                <span className="status status-pending">requested</span>
              ) : plan.plan === 'free' ? null : (
                <button type="button" className="primary" disabled={busy !== null} onClick={() => void choose(plan.plan)}>
                  {pricing.provider === 'stripe' ? 'Check out' : 'Request'} {plan.plan}
                </button>
              )}
            </div>
          );
        })}
      </div>
      {error && (
        <p className="form-error" role="alert">
          {error}
        </p>
      )}
      <p className="muted">{pricing.compute_hours}</p>
    </section>
  );
}
