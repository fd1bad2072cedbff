// SQL for compute usage intervals and their per-day rollup.
import { sql, type Insertable, type Kysely, type Selectable } from 'kysely';
import type { BillingUsagePiecesTable } from '../../core/db/billing-usage-tables.js';
import type { Database, SandboxUsageTable } from '../../core/db/schema.js';
import { splitByDay } from './days.js';

export type UsageRow = Selectable<SandboxUsageTable>;

/** Opens an interval unless the sandbox already has an open one. */
export async function openInterval(db: Kysely<Database>, row: UsageRow): Promise<void> {
  await db
    .insertInto('sandbox_usage')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/**
 * Closes the sandbox's open interval, if any, and adds it to the account's per-day rollup in the same
 * transaction: usage read from the rollup is exact whatever crashes or which server closed it. True when one was closed.
 */
export async function closeInterval(db: Kysely<Database>, sandboxId: string, endedAt: string): Promise<boolean> {
  const close = async (trx: Kysely<Database>) => {
    const closed = await trx.updateTable('sandbox_usage').set({ ended_at: endedAt }).where('sandbox_id', '=', sandboxId).where('ended_at', 'is', null).returningAll().executeTakeFirst();
    if (closed) await addToRollup(trx, [closed]);
    return closed !== undefined;
  };
  return db.isTransaction ? close(db) : db.transaction().execute(close);
}

/** Adds closed intervals to `billing_usage_days` and `billing_usage_pieces`, each split at UTC midnights. */
async function addToRollup(db: Kysely<Database>, closed: readonly UsageRow[]): Promise<void> {
  const sums = new Map<string, { account_id: string; day: string; running_ms: number; cpu_ms: number; memory_mb_ms: number }>();
  const pieces: Insertable<BillingUsagePiecesTable>[] = [];
  for (const interval of closed) {
    const startMs = Date.parse(interval.started_at);
    let pieceStartMs = startMs;
    for (const { day, ms } of splitByDay(startMs, Date.parse(interval.ended_at!))) {
      pieces.push({
        interval_id: interval.id,
        day,
        account_id: interval.account_id,
        started_at: new Date(pieceStartMs).toISOString(),
        ended_at: new Date(pieceStartMs + ms).toISOString(),
        cpus: interval.cpus,
        memory_mb: interval.memory_mb,
      });
      pieceStartMs += ms;
      const key = `${interval.account_id} ${day}`;
      const sum = sums.get(key) ?? { account_id: interval.account_id, day, running_ms: 0, cpu_ms: 0, memory_mb_ms: 0 };
      sum.running_ms += ms;
      sum.cpu_ms += ms * interval.cpus;
      sum.memory_mb_ms += ms * interval.memory_mb;
      sums.set(key, sum);
    }
  }
  if (pieces.length) await db.insertInto('billing_usage_pieces').values(pieces).execute();
  for (const row of sums.values()) {
    await db
      .insertInto('billing_usage_days')
      .values(row)
      .onConflict((oc) =>
        oc.columns(['account_id', 'day']).doUpdateSet({
          running_ms: sql`billing_usage_days.running_ms + excluded.running_ms`,
          cpu_ms: sql`billing_usage_days.cpu_ms + excluded.cpu_ms`,
          memory_mb_ms: sql`billing_usage_days.memory_mb_ms + excluded.memory_mb_ms`,
        }),
      )
      .execute();
  }
}

export async function intervalsOf(db: Kysely<Database>, sandboxIds: readonly string[]): Promise<UsageRow[]> {
  const rows: UsageRow[] = [];
  for (let i = 0; i < sandboxIds.length; i += 500) {
    rows.push(
      ...(await db
        .selectFrom('sandbox_usage')
        .selectAll()
        .where('sandbox_id', 'in', sandboxIds.slice(i, i + 500))
        .orderBy('started_at')
        .execute()),
    );
  }
  return rows;
}
