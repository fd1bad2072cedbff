// Which server's runtime holds each sandbox, so servers sharing one database act only on their own
// (reconcile, crash and idle checks, budgets, port scans). Rows from before this column are adopted
// by the first server that starts on the database (they were all one server's).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sandboxes').addColumn('host_id', 'text').execute();
  await db.schema.createIndex('sandboxes_host_status_idx').on('sandboxes').columns(['host_id', 'status']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('sandboxes_host_status_idx').execute();
  await db.schema.alterTable('sandboxes').dropColumn('host_id').execute();
}
