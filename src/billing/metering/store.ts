// SQL for compute usage intervals.
import type { Kysely, Selectable } from 'kysely';
import type { Database, SandboxUsageTable } from '../../core/db/schema.js';

export type UsageRow = Selectable<SandboxUsageTable>;

/** Opens an interval unless the sandbox already has an open one. */
export async function openInterval(db: Kysely<Database>, row: UsageRow): Promise<void> {
  await db
    .insertInto('sandbox_usage')
    .values(row)
    .onConflict((oc) => oc.doNothing())
    .execute();
}

/** Closes the sandbox's open interval, if any; true when one was closed. */
export async function closeInterval(db: Kysely<Database>, sandboxId: string, endedAt: string): Promise<boolean> {
  const result = await db.updateTable('sandbox_usage').set({ ended_at: endedAt }).where('sandbox_id', '=', sandboxId).where('ended_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
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
