// Every change of a subscription and of the account's plan, each in one transaction with its effects
// (the payment_failed alert). Providers, operators and the sweeper call these; nothing else writes
// subscription rows or `accounts.plan`. The edge table says which moves each state allows; a refused
// move is a 409 naming both states.
import type { AlertRaiser } from '../../alerts/contract.js';
import { inTransaction } from '../../core/db/after-commit.js';
import type { SqlDialect } from '../../core/db/dialect.js';
import type { Db, Tx } from '../../core/db/handles.js';
import { Conflict, NotFound } from '../../core/errors.js';
import type { AccountPlans, BillingProviderName, Period, Plan, Subscription, SubscriptionTransitions as Contract } from '../contract.js';
import { calendarMonthOf, daysAfter } from './periods.js';
import * as store from './store.js';

/** Where a subscription stands: `free` is the free plan (always active); the others are a paid plan's status. */
export type SubscriptionState = 'free' | 'active' | 'past_due' | 'canceled';
type Move = 'activate' | 'renew' | 'markPastDue' | 'scheduleCancel' | 'endNow' | 'rollOver';

const PAID: readonly SubscriptionState[] = ['active', 'past_due', 'canceled'];

/** The states each move may start from. */
const EDGES: Record<Move, readonly SubscriptionState[]> = {
  activate: ['free', ...PAID],
  renew: PAID,
  markPastDue: PAID,
  scheduleCancel: PAID,
  // Ending what already ended is no change (a provider's late event, an operator setting free twice).
  endNow: ['free', ...PAID],
  rollOver: ['free', 'active', 'past_due'],
};

const TARGET: Record<Move, string> = {
  activate: 'active',
  renew: 'active',
  markPastDue: 'past_due',
  scheduleCancel: 'canceled',
  endNow: 'free',
  rollOver: 'the next period',
};

export function stateOf(subscription: Pick<Subscription, 'plan' | 'status'>): SubscriptionState {
  if (subscription.plan === 'free') return 'free';
  return subscription.status === 'pending' ? 'active' : subscription.status;
}

export interface TransitionSettings {
  graceDays: number;
  /** The provider a new row names until one acts for the account (config.billing.provider). */
  defaultProvider: BillingProviderName;
}

export class SubscriptionTransitions implements Contract {
  constructor(
    private readonly db: Db,
    private readonly dialect: SqlDialect,
    private readonly accounts: AccountPlans,
    private readonly alerts: AlertRaiser,
    private readonly settings: TransitionSettings,
    private readonly clock: () => number = Date.now,
  ) {}

  /** `inside` writes in the same transaction what caused the activation (an operator's decision on a plan request). */
  activate(
    accountId: string,
    change: { plan: Plan; provider: BillingProviderName; period: Period; providerCustomerId?: string | null; providerSubscriptionId?: string | null },
    options: { nowMs?: number; inside?: (trx: Tx) => Promise<void> } = {},
  ): Promise<Subscription> {
    if (change.plan === 'free') return this.endNow(accountId, 'the free plan was activated', options.nowMs);
    return this.move(accountId, 'activate', options.nowMs ?? this.clock(), async (current, trx) => {
      await options.inside?.(trx);
      return {
        plan: change.plan,
        status: 'active',
        provider: change.provider,
        current_period_start: change.period.start,
        current_period_end: change.period.end,
        cancel_at_period_end: 0,
        grace_ends_at: null,
        provider_customer_id: change.providerCustomerId === undefined ? current.provider_customer_id : change.providerCustomerId,
        provider_subscription_id: change.providerSubscriptionId === undefined ? current.provider_subscription_id : change.providerSubscriptionId,
      };
    });
  }

  renew(accountId: string, change: { period: Period; plan?: Plan; cancelAtPeriodEnd?: boolean }, nowMs = this.clock()): Promise<Subscription> {
    return this.move(accountId, 'renew', nowMs, async (current) => {
      const cancel = change.cancelAtPeriodEnd ?? current.cancel_at_period_end === 1;
      return {
        plan: change.plan ?? current.plan,
        status: cancel ? 'canceled' : 'active',
        current_period_start: change.period.start,
        current_period_end: change.period.end,
        cancel_at_period_end: cancel ? 1 : 0,
        grace_ends_at: null,
      };
    });
  }

  markPastDue(accountId: string, reason: string, nowMs = this.clock()): Promise<Subscription> {
    return this.move(accountId, 'markPastDue', nowMs, async (current, trx) => {
      // A second failure during the grace period neither extends it nor alerts again.
      if (current.status === 'past_due') return {};
      const graceEndsAt = daysAfter(nowMs, this.settings.graceDays);
      await this.alerts.raise(
        {
          accountId,
          type: 'payment_failed',
          resource: { kind: 'account', id: accountId },
          sandboxId: null,
          message: `Payment for the ${current.plan} plan failed (${reason}); the plan holds until ${graceEndsAt}, then the free plan's limits apply`,
          details: { plan: current.plan, reason, grace_ends_at: graceEndsAt },
        },
        { db: trx },
      );
      return { status: 'past_due', grace_ends_at: graceEndsAt };
    });
  }

  scheduleCancel(accountId: string, nowMs = this.clock()): Promise<Subscription> {
    return this.move(accountId, 'scheduleCancel', nowMs, async () => ({ status: 'canceled', cancel_at_period_end: 1 }));
  }

  /** The free plan from now on, on the calendar month; the row stays (with its provider customer). */
  endNow(accountId: string, _reason: string, nowMs = this.clock()): Promise<Subscription> {
    return this.move(accountId, 'endNow', nowMs, async (current) => endChanges(current, nowMs));
  }

  /** A manual (or free) period that ended moves on to the calendar month containing `nowMs`. */
  rollOver(accountId: string, nowMs = this.clock()): Promise<Subscription> {
    return this.move(accountId, 'rollOver', nowMs, async (current) => rollChanges(current, nowMs));
  }

  /**
   * What the clock decides, judged under the account's lock: a grace period or a canceled period that
   * ran out ends the subscription, a manual or free period that ended rolls over (see dueMoveOf).
   */
  settleDue(accountId: string, nowMs = this.clock()): Promise<Subscription> {
    return this.move(
      accountId,
      (current) => dueMoveOf(current, nowMs),
      nowMs,
      async (current) => (dueMoveOf(current, nowMs) === 'endNow' ? endChanges(current, nowMs) : rollChanges(current, nowMs)),
    );
  }

  accountOfCustomer(provider: BillingProviderName, customerId: string): Promise<string | null> {
    return store.accountOfCustomer(this.db, provider, customerId);
  }

  async rememberCustomer(accountId: string, provider: BillingProviderName, customerId: string): Promise<void> {
    const nowMs = this.clock();
    const plan = await this.planWithoutRow(accountId);
    await inTransaction(this.db, async (trx) => {
      await this.dialect.lockKey(trx, lockKeyOf(accountId));
      const current = await this.ensureRow(trx, accountId, plan, nowMs);
      await store.updateSubscription(trx, accountId, { provider, provider_customer_id: customerId, updated_at: new Date(nowMs).toISOString() });
      return current;
    });
  }

  /** `which` names the move, or picks it from the row under the lock (null: nothing to do). */
  private async move(
    accountId: string,
    which: Move | ((current: store.SubscriptionRow) => Move | null),
    nowMs: number,
    decide: (current: store.SubscriptionRow, trx: Tx) => Promise<Partial<store.SubscriptionRow>>,
  ): Promise<Subscription> {
    const plan = await this.planWithoutRow(accountId);
    return inTransaction(this.db, async (trx) => {
      await this.dialect.lockKey(trx, lockKeyOf(accountId));
      const current = await this.ensureRow(trx, accountId, plan, nowMs);
      const move = typeof which === 'string' ? which : which(current);
      if (move === null) return store.subscriptionOf(current);
      const from = stateOf(subscriptionFromRow(current));
      if (!EDGES[move].includes(from)) {
        throw new Conflict(`the subscription is ${from === 'free' ? 'on the free plan' : from}; it cannot move to ${TARGET[move]}`, 'subscription_state_conflict');
      }
      const changes = await decide(current, trx);
      if (Object.keys(changes).length === 0) return store.subscriptionOf(current);
      const next: store.SubscriptionRow = { ...current, ...changes, updated_at: new Date(nowMs).toISOString() };
      await store.updateSubscription(trx, accountId, next);
      if (next.plan !== current.plan) await this.accounts.setPlan(trx, accountId, next.plan);
      return store.subscriptionOf(next);
    });
  }

  /** The plan `accounts.plan` holds: the truth for an account without a row (the bootstrap account starts on enterprise). */
  private async planWithoutRow(accountId: string): Promise<Plan> {
    try {
      return (await this.accounts.account(accountId)).plan;
    } catch (error) {
      if (error instanceof NotFound) throw new NotFound('account');
      throw error;
    }
  }

  /** The account's row, written first from what an account without one has: its plan, active, the calendar month. */
  private async ensureRow(trx: Tx, accountId: string, plan: Plan, nowMs: number): Promise<store.SubscriptionRow> {
    const existing = await store.findSubscription(trx, accountId);
    if (existing) return existing;
    const month = calendarMonthOf(nowMs);
    const now = new Date(nowMs).toISOString();
    const row: store.SubscriptionRow = {
      account_id: accountId,
      plan,
      status: 'active',
      provider: this.settings.defaultProvider,
      current_period_start: month.start,
      current_period_end: month.end,
      cancel_at_period_end: 0,
      grace_ends_at: null,
      provider_customer_id: null,
      provider_subscription_id: null,
      created_at: now,
      updated_at: now,
    };
    await store.insertSubscription(trx, row);
    return row;
  }
}

/** What the clock asks of this row at `nowMs`: end it, roll its period over, or nothing (a paid stripe period moves with the provider's events). */
export function dueMoveOf(row: store.SubscriptionRow, nowMs: number): 'endNow' | 'rollOver' | null {
  if (row.status === 'past_due' && row.grace_ends_at !== null && Date.parse(row.grace_ends_at) <= nowMs) return 'endNow';
  if (Date.parse(row.current_period_end) > nowMs) return null;
  if (row.cancel_at_period_end === 1) return 'endNow';
  if (row.provider === 'manual' || row.plan === 'free') return 'rollOver';
  return null;
}

function endChanges(current: store.SubscriptionRow, nowMs: number): Partial<store.SubscriptionRow> {
  if (current.plan === 'free') return {};
  const month = calendarMonthOf(nowMs);
  return { plan: 'free', status: 'active', current_period_start: month.start, current_period_end: month.end, cancel_at_period_end: 0, grace_ends_at: null, provider_subscription_id: null };
}

function rollChanges(current: store.SubscriptionRow, nowMs: number): Partial<store.SubscriptionRow> {
  if (Date.parse(current.current_period_end) > nowMs) return {};
  const month = calendarMonthOf(nowMs);
  return { current_period_start: month.start, current_period_end: month.end };
}

function subscriptionFromRow(row: store.SubscriptionRow): Pick<Subscription, 'plan' | 'status'> {
  return { plan: row.plan, status: row.status };
}

function lockKeyOf(accountId: string): string {
  return `billing:${accountId}`;
}
