// Compute metering and budgets: one row per interval a sandbox spent running (open while it runs), and on
// sandboxes the callback URLs, why a sandbox was destroyed, which budget alerts it has raised and when its
// completion callback was queued (so it is queued once, whoever ends the sandbox).
import type { Kysely } from 'kysely';
import { sql } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sandbox_usage')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('sandbox_id', 'text', (c) => c.notNull().references('sandboxes.id').onDelete('cascade'))
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('cpus', 'integer', (c) => c.notNull())
    .addColumn('memory_mb', 'integer', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('ended_at', 'text')
    .execute();
  await db.schema.createIndex('sandbox_usage_sandbox_idx').on('sandbox_usage').columns(['sandbox_id', 'started_at']).execute();
  await db.schema.createIndex('sandbox_usage_account_idx').on('sandbox_usage').columns(['account_id', 'started_at']).execute();
  // At most one open interval per sandbox: a second start while running is a no-op, not a double charge.
  await db.schema.createIndex('sandbox_usage_one_open_idx').unique().on('sandbox_usage').column('sandbox_id').where(sql.ref('ended_at'), 'is', null).execute();

  await db.schema.alterTable('sandboxes').addColumn('on_complete', 'text').execute();
  await db.schema.alterTable('sandboxes').addColumn('on_budget_exceeded', 'text').execute();
  await db.schema.alterTable('sandboxes').addColumn('destroyed_reason', 'text').execute();
  await db.schema
    .alterTable('sandboxes')
    .addColumn('budget_alerts_raised', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.alterTable('sandboxes').addColumn('completed_at', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of ['completed_at', 'budget_alerts_raised', 'destroyed_reason', 'on_budget_exceeded', 'on_complete']) {
    await db.schema.alterTable('sandboxes').dropColumn(column).execute();
  }
  await db.schema.dropTable('sandbox_usage').execute();
}
