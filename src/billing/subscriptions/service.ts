// The subscription as accounts and other features read it: the stored row settled against the clock
// (a read never shows a period that has ended), or, for an account without one, its plan on the
// calendar month. Its view adds the plan's limits, the pending plan request and the period's usage.
import type { Db } from '../../core/db/handles.js';
import type { AccountPlans, BillingProviderName, Period, PlanCatalog, Subscription, UsageReader } from '../contract.js';
import type { PlanRequests, PlanRequestView } from '../plan-requests/service.js';
import { calendarMonthOf } from './periods.js';
import * as store from './store.js';
import { dueMoveOf, type SubscriptionTransitions } from './transitions.js';

export interface SubscriptionView {
  plan: Subscription['plan'];
  status: Subscription['status'];
  provider: BillingProviderName;
  current_period_start: string;
  current_period_end: string;
  cancel_at_period_end: boolean;
  effective_at: string | null;
  grace_ends_at: string | null;
  pending_request: PlanRequestView | null;
  limits: { concurrent_sandboxes: number | null; compute_hours_per_month: number | null; requests_per_minute: number };
  usage: { compute_hours: number; compute_cost_usd: number; llm_cost_usd: number; total_cost_usd: number; sandboxes_created: number };
}

/** Stored subscriptions of these accounts (operators list statuses); accounts without one are on their account's plan, active. */
export async function storedSubscriptions(db: Db, accountIds: string[]): Promise<Map<string, Subscription>> {
  const rows = await store.statusesOf(db, accountIds);
  return new Map([...rows].map(([id, row]) => [id, store.subscriptionOf(row)]));
}

export class SubscriptionService {
  constructor(
    private readonly db: Db,
    private readonly transitions: SubscriptionTransitions,
    private readonly accounts: AccountPlans,
    private readonly catalog: PlanCatalog,
    private readonly requests: PlanRequests,
    private readonly usage: UsageReader,
    /** The provider an account without a row would use (config.billing.provider). */
    private readonly defaultProvider: BillingProviderName,
    private readonly clock: () => number = Date.now,
  ) {}

  /** The account's subscription at `nowMs`, any due rollover, cancel or grace end applied first. */
  async current(accountId: string, nowMs = this.clock()): Promise<Subscription> {
    const row = await store.findSubscription(this.db, accountId);
    if (row) return dueMoveOf(row, nowMs) ? this.transitions.settleDue(accountId, nowMs) : store.subscriptionOf(row);
    const account = await this.accounts.account(accountId);
    const month = calendarMonthOf(nowMs);
    return {
      accountId,
      plan: account.plan,
      status: 'active',
      provider: this.defaultProvider,
      currentPeriodStart: month.start,
      currentPeriodEnd: month.end,
      cancelAtPeriodEnd: false,
      graceEndsAt: null,
      providerCustomerId: null,
      providerSubscriptionId: null,
      updatedAt: account.createdAt,
    };
  }

  /** The period usage and the compute quota count in (billing/usage reads it). */
  async currentPeriod(accountId: string, nowMs = this.clock()): Promise<Period> {
    const subscription = await this.current(accountId, nowMs);
    return { start: subscription.currentPeriodStart, end: subscription.currentPeriodEnd };
  }

  async view(accountId: string, nowMs = this.clock()): Promise<SubscriptionView> {
    const subscription = await this.current(accountId, nowMs);
    const [pending, usage] = await Promise.all([this.requests.pending(accountId), this.usage.usage(accountId, { start: subscription.currentPeriodStart, end: subscription.currentPeriodEnd }, nowMs)]);
    const plan = this.catalog.get(subscription.plan);
    // The free plan is always active; while a request for a paid plan awaits an operator it shows `pending`.
    const status = subscription.plan === 'free' && pending ? 'pending' : subscription.status;
    return {
      plan: subscription.plan,
      status,
      provider: subscription.provider,
      current_period_start: subscription.currentPeriodStart,
      current_period_end: subscription.currentPeriodEnd,
      cancel_at_period_end: subscription.cancelAtPeriodEnd,
      effective_at: subscription.cancelAtPeriodEnd ? subscription.currentPeriodEnd : null,
      grace_ends_at: subscription.graceEndsAt,
      pending_request: pending,
      limits: { concurrent_sandboxes: plan.concurrentSandboxes, compute_hours_per_month: plan.computeHoursPerMonth, requests_per_minute: plan.requestsPerMinute },
      usage: {
        compute_hours: usage.computeHours,
        compute_cost_usd: usage.computeCostUsd,
        llm_cost_usd: usage.llmCostUsd,
        total_cost_usd: usage.totalCostUsd,
        sandboxes_created: usage.sandboxesCreated,
      },
    };
  }
}
