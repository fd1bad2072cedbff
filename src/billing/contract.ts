// What the billing feature's parts agree on: plans and their limits, the subscription an account has,
// the usage of its current period, the provider seam (manual, stripe) and the one writer of
// subscription state. Other features reach billing only through these types and the ports at the end,
// which the consumer (billing) owns and app.ts wires to the features that answer them.
import type { Plan } from '../core/db/column-values.js';

export type { Plan };
export type PaidPlan = Exclude<Plan, 'free'>;
export const PLANS: readonly Plan[] = ['free', 'pro', 'team', 'enterprise'];
export const PAID_PLANS: readonly PaidPlan[] = ['pro', 'team', 'enterprise'];

/** One plan as the pricing endpoint shows it and every limit check reads it (billing/plans.ts builds them from config). */
export interface PlanDefinition {
  plan: Plan;
  /** USD per month; null: a custom price agreed with the operator (enterprise). */
  priceUsdPerMonth: number | null;
  /** Sandboxes not destroyed nor failed at once; null: unlimited. */
  concurrentSandboxes: number | null;
  /** Sandbox running hours per period (see docs/decisions.md: a running sandbox counts 1 h per hour, paused counts 0); null: unlimited. */
  computeHoursPerMonth: number | null;
  requestsPerMinute: number;
  description: string;
}

export interface PlanCatalog {
  get(plan: Plan): PlanDefinition;
  all(): PlanDefinition[];
}

/**
 * `active`: paid and in force (the free plan is always active). `past_due`: a payment failed; the plan
 * holds for the grace period. `canceled`: a cancel was asked for; the plan holds until `effective_at`,
 * then the account moves to the free plan and `active`. `pending`: a checkout or plan request awaits
 * payment or an operator.
 */
export type SubscriptionStatus = 'active' | 'past_due' | 'canceled' | 'pending';

export type BillingProviderName = 'manual' | 'stripe';

/** The stored subscription of an account (one per account; an account without a row is on free, active, calendar month). */
export interface Subscription {
  accountId: string;
  plan: Plan;
  status: SubscriptionStatus;
  provider: BillingProviderName;
  /** ISO; periods roll over here (the provider's period for stripe, the calendar month for manual). */
  currentPeriodStart: string;
  currentPeriodEnd: string;
  cancelAtPeriodEnd: boolean;
  /** ISO; set while past_due: when the grace period ends and the free plan's limits apply. */
  graceEndsAt: string | null;
  providerCustomerId: string | null;
  providerSubscriptionId: string | null;
  updatedAt: string;
}

export interface Usage {
  /** Sandbox running hours in the period (paused and stopped time count nothing). */
  computeHours: number;
  /** Compute cost at the configured vCPU/GiB rates, for reference beside the plan price. */
  computeCostUsd: number;
  llmCostUsd: number;
  totalCostUsd: number;
  sandboxesCreated: number;
}

export interface DailyUsage extends Usage {
  /** UTC day, `YYYY-MM-DD`. */
  date: string;
}

/** A time window, ISO instants, `to` exclusive. */
export interface Period {
  start: string;
  end: string;
}

/** Answers usage from the metering that exists (billing/usage). */
export interface UsageReader {
  usage(accountId: string, period: Period, nowMs?: number): Promise<Usage>;
  daily(accountId: string, window: Period, nowMs?: number): Promise<DailyUsage[]>;
}

/** What a provider knows of the account it acts for. */
export interface BillingAccount {
  id: string;
  email: string;
  name: string | null;
}

export interface CheckoutResult {
  url: string;
}

/** Where a provider's pages send the user back to: this server's public origin (PADDOCK_PUBLIC_URL, else the request's). */
export interface ReturnContext {
  publicBase: string;
}

/**
 * The provider seam (billing/providers/<name>/), as runtime/ and alerts/channels/ are shaped. A provider
 * turns user intents into its own world (a Stripe Checkout Session, an operator's plan request) and
 * reports what happens there back through `SubscriptionTransitions`.
 */
export interface BillingProvider {
  readonly name: BillingProviderName;
  checkout(account: BillingAccount, plan: PaidPlan, subscription: Subscription, context?: ReturnContext): Promise<CheckoutResult>;
  portal(account: BillingAccount, subscription: Subscription, context?: ReturnContext): Promise<{ url: string }>;
  /** Tells the provider to end the subscription at the period's end (stripe: `cancel_at_period_end`); the caller records it. */
  cancelAtPeriodEnd(subscription: Subscription): Promise<void>;
}

/**
 * The one writer of subscription state and of the account's plan (billing/subscriptions/transitions.ts):
 * each change writes the row, the account's plan, and its effects (alerts, events) in one transaction.
 */
export interface SubscriptionTransitions {
  /** A paid plan starts or changes (checkout completed, operator approval, provider update). */
  activate(accountId: string, change: { plan: Plan; provider: BillingProviderName; period: Period; providerCustomerId?: string | null; providerSubscriptionId?: string | null }): Promise<Subscription>;
  /** The provider moved the period on (invoice paid, subscription updated); clears past_due. */
  renew(accountId: string, change: { period: Period; plan?: Plan; cancelAtPeriodEnd?: boolean }): Promise<Subscription>;
  /** A payment failed: past_due with a grace period, the account alerted. */
  markPastDue(accountId: string, reason: string): Promise<Subscription>;
  /** Cancel at the period's end: status `canceled`, the plan holds until then. */
  scheduleCancel(accountId: string): Promise<Subscription>;
  /** The subscription ended now (provider deleted it, grace ran out, the canceled period ended): the free plan. */
  endNow(accountId: string, reason: string): Promise<Subscription>;
  /** Finds an account by its provider customer id (webhooks name customers, not accounts). */
  accountOfCustomer(provider: BillingProviderName, customerId: string): Promise<string | null>;
  /** Records the customer id a provider made for the account (before checkout completes). */
  rememberCustomer(accountId: string, provider: BillingProviderName, customerId: string): Promise<void>;
}

// Ports billing owns; app.ts wires them to the features that answer them.

/** Accounts: the plan column the request guard and limit checks read; billing is its only writer. */
export interface AccountPlans {
  account(accountId: string): Promise<BillingAccount & { plan: Plan; createdAt: string }>;
  /** Writes the plan inside `trx` (billing's transaction) and makes every later request see it. */
  setPlan(trx: unknown, accountId: string, plan: Plan): Promise<void>;
}

/** Sandboxes: how many an account created, per UTC day (for `sandboxes_created`). */
export interface SandboxCreations {
  createdPerDay(accountId: string, window: Period): Promise<Map<string, number>>;
}

/** Sessions: LLM spend of an account's sessions, per UTC day. */
export interface LlmSpend {
  llmCostPerDay(accountId: string, window: Period): Promise<Map<string, number>>;
}

/** Sandboxes: pauses every running sandbox of the account (compute quota reached); how many were paused. */
export interface SandboxPauser {
  pauseAllRunning(accountId: string, reason: string): Promise<number>;
}
