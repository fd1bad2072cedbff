// SQL for the compute quota: which accounts are being charged now, and the marks that remember, per
// period and limit, which thresholds an account crossed (the primary key makes each one happen once).
import { sql, type Kysely } from 'kysely';
import { prepared } from '../../core/db/prepared.js';
import type { Database } from '../../core/db/schema.js';

export type QuotaMarkType = 'quota_warning' | 'quota_exceeded' | 'limit_reached';

export interface QuotaMark {
  account_id: string;
  period_start: string;
  period_end: string;
  limit_hours: number;
  type: QuotaMarkType;
  hours_used: number;
  created_at: string;
}

/** Accounts with a running sandbox, and how many each has running (open intervals). */
export async function runningByAccount(db: Kysely<Database>): Promise<Map<string, number>> {
  const rows = await db
    .selectFrom('sandbox_usage')
    .select((eb) => ['account_id', eb.fn.countAll<number | string>().as('n')])
    .where('ended_at', 'is', null)
    .groupBy('account_id')
    .execute();
  return new Map(rows.map((row) => [row.account_id, Number(row.n)]));
}

/** Inserts the mark unless it exists; true when this call inserted it (so only one server, once, acts on it). */
export async function markOnce(db: Kysely<Database>, mark: QuotaMark): Promise<boolean> {
  const inserted = await db
    .insertInto('billing_quota_marks')
    .values(mark)
    .onConflict((oc) => oc.columns(['account_id', 'period_start', 'limit_hours', 'type']).doNothing())
    .returning('account_id')
    .executeTakeFirst();
  return inserted !== undefined;
}

const reachedLimitQuery = prepared((db, accountId, nowIso) =>
  db
    .selectFrom('billing_quota_marks')
    .select(['limit_hours', 'period_end'])
    .where('account_id', '=', accountId)
    .where('type', '=', 'limit_reached')
    .where('period_end', '>', nowIso)
    .where('period_start', '<=', nowIso)
    .orderBy('limit_hours', 'desc')
    .limit(sql.lit(1)),
);

/** The biggest limit the account reached in a period that has not ended at `nowIso`, with that period's end. */
export async function reachedLimit(db: Kysely<Database>, accountId: string, nowIso: string): Promise<{ limitHours: number; periodEnd: string } | null> {
  const [row] = await reachedLimitQuery(db, accountId, nowIso);
  return row ? { limitHours: Number(row.limit_hours), periodEnd: row.period_end } : null;
}
