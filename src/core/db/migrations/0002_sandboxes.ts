// Sandboxes: one row per sandbox for its whole life; destroyed ones stay with status `destroyed`.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sandboxes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('runtime', 'text', (c) => c.notNull())
    .addColumn('template', 'text', (c) => c.notNull())
    .addColumn('cpus', 'integer', (c) => c.notNull())
    .addColumn('memory_mb', 'integer', (c) => c.notNull())
    .addColumn('disk_gb', 'integer', (c) => c.notNull())
    .addColumn('network_mode', 'text', (c) => c.notNull())
    .addColumn('allowlist', 'text', (c) => c.notNull())
    .addColumn('env', 'text', (c) => c.notNull())
    .addColumn('ip', 'text')
    .addColumn('repo', 'text')
    .addColumn('repo_branch', 'text')
    .addColumn('repo_commit', 'text')
    .addColumn('repo_subdir', 'text')
    .addColumn('budget', 'double precision')
    .addColumn('init_script', 'text')
    .addColumn('timeout', 'integer')
    .addColumn('packages', 'text', (c) => c.notNull())
    .addColumn('agents', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('last_activity_at', 'text', (c) => c.notNull())
    .addColumn('destroyed_at', 'text')
    .execute();
  await db.schema.createIndex('sandboxes_account_idx').on('sandboxes').columns(['account_id', 'status']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('sandboxes').execute();
}
