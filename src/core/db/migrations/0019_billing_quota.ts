// Billing usage and compute quota: closed running intervals rolled up per account and UTC day (backfilled
// here from the intervals that exist), the quota thresholds each account crossed per period, and the
// indexes the usage reads need (open intervals per account, sandboxes created per day).
import { sql, type Kysely } from 'kysely';

const BACKFILL_BATCH = 5000;

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('billing_usage_days')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('running_ms', 'bigint', (c) => c.notNull())
    .addColumn('cpu_ms', 'bigint', (c) => c.notNull())
    .addColumn('memory_mb_ms', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('billing_usage_days_pk', ['account_id', 'day'])
    .execute();
  await db.schema
    .createTable('billing_usage_pieces')
    .addColumn('interval_id', 'text', (c) => c.notNull().references('sandbox_usage.id').onDelete('cascade'))
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('ended_at', 'text', (c) => c.notNull())
    .addColumn('cpus', 'integer', (c) => c.notNull())
    .addColumn('memory_mb', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('billing_usage_pieces_pk', ['interval_id', 'day'])
    .execute();
  await db.schema.createIndex('billing_usage_pieces_day_idx').on('billing_usage_pieces').columns(['account_id', 'day']).execute();
  await db.schema
    .createTable('billing_quota_marks')
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('period_start', 'text', (c) => c.notNull())
    .addColumn('limit_hours', 'double precision', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('period_end', 'text', (c) => c.notNull())
    .addColumn('hours_used', 'double precision', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('billing_quota_marks_pk', ['account_id', 'period_start', 'limit_hours', 'type'])
    .execute();
  await db.schema.createIndex('billing_quota_marks_block_idx').on('billing_quota_marks').columns(['account_id', 'type', 'period_end']).execute();
  await db.schema.createIndex('sandbox_usage_account_open_idx').on('sandbox_usage').columns(['account_id', 'ended_at']).execute();
  await db.schema.createIndex('sandboxes_account_created_idx').on('sandboxes').columns(['account_id', 'created_at']).execute();
  await db.schema.createIndex('sessions_account_created_idx').on('sessions').columns(['account_id', 'created_at']).execute();

  for (let after = ''; ;) {
    const closed = (await db.selectFrom('sandbox_usage').selectAll().where('ended_at', 'is not', null).where('id', '>', after).orderBy('id').limit(BACKFILL_BATCH).execute()) as Interval[];
    if (!closed.length) break;
    await backfill(db, closed);
    after = closed[closed.length - 1]!.id;
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('sessions_account_created_idx').execute();
  await db.schema.dropIndex('sandboxes_account_created_idx').execute();
  await db.schema.dropIndex('sandbox_usage_account_open_idx').execute();
  await db.schema.dropTable('billing_quota_marks').execute();
  await db.schema.dropTable('billing_usage_pieces').execute();
  await db.schema.dropTable('billing_usage_days').execute();
}

interface Interval {
  id: string;
  account_id: string;
  cpus: number;
  memory_mb: number;
  started_at: string;
  ended_at: string;
}

const DAY_MS = 86_400_000;

/** The rollup and pieces billing/metering/store.ts keeps from here on, for the intervals closed before they existed. */
async function backfill(db: Kysely<any>, closed: readonly Interval[]): Promise<void> {
  const sums = new Map<string, { account_id: string; day: string; running_ms: number; cpu_ms: number; memory_mb_ms: number }>();
  for (const interval of closed) {
    const endMs = Date.parse(interval.ended_at);
    for (let start = Date.parse(interval.started_at); start < endMs;) {
      const end = Math.min(endMs, Math.floor(start / DAY_MS) * DAY_MS + DAY_MS);
      const day = new Date(start).toISOString().slice(0, 10);
      const key = `${interval.account_id} ${day}`;
      const sum = sums.get(key) ?? { account_id: interval.account_id, day, running_ms: 0, cpu_ms: 0, memory_mb_ms: 0 };
      sum.running_ms += end - start;
      sum.cpu_ms += (end - start) * interval.cpus;
      sum.memory_mb_ms += (end - start) * interval.memory_mb;
      sums.set(key, sum);
      const piece = {
        interval_id: interval.id,
        day,
        account_id: interval.account_id,
        started_at: new Date(start).toISOString(),
        ended_at: new Date(end).toISOString(),
        cpus: interval.cpus,
        memory_mb: interval.memory_mb,
      };
      await db.insertInto('billing_usage_pieces').values(piece).execute();
      start = end;
    }
  }
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
