// SQL for plan requests: what an account asked an operator for, and what the operator decided.
import type { Selectable } from 'kysely';
import type { BillingPlanRequestsTable, PlanRequestStatus } from '../../core/db/billing-tables.js';
import type { Db, Tx } from '../../core/db/handles.js';

export type PlanRequestRow = Selectable<BillingPlanRequestsTable>;

export async function insertRequest(trx: Tx, row: PlanRequestRow): Promise<void> {
  await trx.insertInto('billing_plan_requests').values(row).execute();
}

export function findRequest(db: Db, id: string): Promise<PlanRequestRow | undefined> {
  return db.selectFrom('billing_plan_requests').selectAll().where('id', '=', id).executeTakeFirst();
}

export function pendingOf(db: Db, accountId: string): Promise<PlanRequestRow | undefined> {
  return db.selectFrom('billing_plan_requests').selectAll().where('account_id', '=', accountId).where('status', '=', 'pending').orderBy('created_at', 'desc').executeTakeFirst();
}

export function listRequests(db: Db, status: PlanRequestStatus | null, limit: number): Promise<PlanRequestRow[]> {
  let query = db.selectFrom('billing_plan_requests').selectAll();
  if (status) query = query.where('status', '=', status);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit).execute();
}

/** Moves a pending request to its decision; false when it was no longer pending (decided meanwhile). */
export async function decide(trx: Tx, id: string, decision: { status: PlanRequestStatus; reason: string | null; decidedBy: string | null; at: string }): Promise<boolean> {
  const result = await trx
    .updateTable('billing_plan_requests')
    .set({ status: decision.status, reason: decision.reason, decided_by: decision.decidedBy, decided_at: decision.at, updated_at: decision.at })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Withdraws the account's pending requests (a newer request, a cancel); how many there were. */
export async function cancelPending(trx: Tx, accountId: string, reason: string, at: string): Promise<number> {
  const result = await trx
    .updateTable('billing_plan_requests')
    .set({ status: 'canceled', reason, decided_at: at, updated_at: at })
    .where('account_id', '=', accountId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}
