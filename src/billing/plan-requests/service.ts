// Plan requests: an account asks for a paid plan (the manual provider's checkout, or enterprise through
// Stripe without a price) and an operator approves or rejects it. One pending request per account: a
// new one replaces the old. Approval activates the plan through the one writer, in the same transaction.
import { inTransaction } from '../../core/db/after-commit.js';
import type { PlanRequestStatus } from '../../core/db/billing-tables.js';
import type { Db } from '../../core/db/handles.js';
import { Conflict, NotFound } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { PaidPlan } from '../contract.js';
import { calendarMonthOf } from '../subscriptions/periods.js';
import type { SubscriptionTransitions } from '../subscriptions/transitions.js';
import * as store from './store.js';

export interface PlanRequestView {
  id: string;
  account_id: string;
  plan: PaidPlan;
  status: PlanRequestStatus;
  reason: string | null;
  decided_by: string | null;
  decided_at: string | null;
  created_at: string;
  updated_at: string;
}

export function planRequestView(row: store.PlanRequestRow): PlanRequestView {
  return { ...row, plan: row.plan as PaidPlan };
}

export class PlanRequests {
  constructor(
    private readonly db: Db,
    private readonly transitions: SubscriptionTransitions,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Records a pending request for `plan`, withdrawing the account's earlier pending one. */
  async request(accountId: string, plan: PaidPlan, nowMs = this.clock()): Promise<PlanRequestView> {
    const at = new Date(nowMs).toISOString();
    const row: store.PlanRequestRow = { id: newId('preq', nowMs), account_id: accountId, plan, status: 'pending', reason: null, decided_by: null, decided_at: null, created_at: at, updated_at: at };
    await inTransaction(this.db, async (trx) => {
      await store.cancelPending(trx, accountId, `replaced by request ${row.id}`, at);
      await store.insertRequest(trx, row);
    });
    return planRequestView(row);
  }

  async pending(accountId: string): Promise<PlanRequestView | null> {
    const row = await store.pendingOf(this.db, accountId);
    return row ? planRequestView(row) : null;
  }

  async get(id: string): Promise<PlanRequestView> {
    const row = await store.findRequest(this.db, id);
    if (!row) throw new NotFound('plan request');
    return planRequestView(row);
  }

  async list(status: PlanRequestStatus | null, limit = 100): Promise<PlanRequestView[]> {
    return (await store.listRequests(this.db, status, limit)).map(planRequestView);
  }

  /** Withdraws the account's pending request, if any; true when there was one. */
  async withdraw(accountId: string, reason: string, nowMs = this.clock()): Promise<boolean> {
    return inTransaction(this.db, async (trx) => (await store.cancelPending(trx, accountId, reason, new Date(nowMs).toISOString())) > 0);
  }

  /** Approves a pending request: the plan is in force from now, on the current calendar month. */
  async approve(id: string, decidedBy: string, nowMs = this.clock()): Promise<PlanRequestView> {
    const request = await this.get(id);
    const at = new Date(nowMs).toISOString();
    await this.transitions.activate(
      request.account_id,
      { plan: request.plan, provider: 'manual', period: calendarMonthOf(nowMs) },
      {
        nowMs,
        inside: async (trx) => {
          if (!(await store.decide(trx, id, { status: 'approved', reason: null, decidedBy, at }))) throw notPending(await store.findRequest(trx, id));
        },
      },
    );
    return this.get(id);
  }

  async reject(id: string, decidedBy: string, reason: string | null, nowMs = this.clock()): Promise<PlanRequestView> {
    const at = new Date(nowMs).toISOString();
    await inTransaction(this.db, async (trx) => {
      if (!(await store.decide(trx, id, { status: 'rejected', reason, decidedBy, at }))) throw notPending(await store.findRequest(trx, id));
    });
    return this.get(id);
  }
}

function notPending(row: store.PlanRequestRow | undefined): Error {
  if (!row) return new NotFound('plan request');
  return new Conflict(`plan request ${row.id} is ${row.status}, not pending: only a pending request can be approved or rejected`);
}
