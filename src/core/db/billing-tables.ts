// The billing tables (migration 0018), kept beside schema.ts so that file stays one screenful per feature.
import type { Plan } from './column-values.js';

export type SubscriptionRowStatus = 'active' | 'past_due' | 'canceled' | 'pending';
export type PlanRequestStatus = 'pending' | 'approved' | 'rejected' | 'canceled';

export interface BillingSubscriptionsTable {
  account_id: string;
  plan: Plan;
  status: SubscriptionRowStatus;
  provider: 'manual' | 'stripe';
  current_period_start: string;
  current_period_end: string;
  /** 0 or 1. */
  cancel_at_period_end: number;
  grace_ends_at: string | null;
  provider_customer_id: string | null;
  provider_subscription_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface BillingPlanRequestsTable {
  id: string;
  account_id: string;
  plan: Plan;
  status: PlanRequestStatus;
  /** Why it was rejected or canceled. */
  reason: string | null;
  /** The operator's account id, or `console` for the `paddock accounts` CLI. */
  decided_by: string | null;
  decided_at: string | null;
  created_at: string;
  updated_at: string;
}
