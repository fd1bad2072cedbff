// Shapes of billing's answers, from src/billing/schemas.ts and src/billing/usage/routes.ts.
export type PlanName = 'free' | 'pro' | 'team' | 'enterprise';
export type SubscriptionStatus = 'active' | 'past_due' | 'canceled' | 'pending';

export interface PlanRequest {
  id: string;
  account_id: string;
  plan: Exclude<PlanName, 'free'>;
  status: 'pending' | 'approved' | 'rejected' | 'canceled';
  reason: string | null;
  decided_by: string | null;
  decided_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface Usage {
  compute_hours: number;
  compute_cost_usd: number;
  llm_cost_usd: number;
  total_cost_usd: number;
  sandboxes_created: number;
}

export interface Subscription {
  plan: PlanName;
  status: SubscriptionStatus;
  provider: 'manual' | 'stripe';
  current_period_start: string;
  current_period_end: string;
  cancel_at_period_end: boolean;
  effective_at: string | null;
  grace_ends_at: string | null;
  pending_request: PlanRequest | null;
  limits: { concurrent_sandboxes: number | null; compute_hours_per_month: number | null; requests_per_minute: number };
  usage: Usage;
  /** This account decides plan requests (GET /v1/admin/plan-requests). */
  operator: boolean;
}

export interface PricingPlan {
  plan: PlanName;
  price_usd_per_month: number | null;
  concurrent_sandboxes: number | null;
  compute_hours_per_month: number | null;
  requests_per_minute: number;
  description: string;
}

export interface Pricing {
  currency: 'usd';
  provider: 'manual' | 'stripe';
  compute_hours: string;
  plans: PricingPlan[];
}

export interface UsageDay extends Usage {
  date: string;
}

export interface UsageHistory {
  from: string;
  to: string;
  days: UsageDay[];
  totals: Usage;
}

export interface CheckoutAnswer {
  url: string;
  status: 'pending' | 'open';
  request_id: string | null;
}

/** GET /v1/admin/accounts (operators only). */
export interface OperatorAccount {
  id: string;
  email: string;
  plan: PlanName;
  operator: boolean;
}
