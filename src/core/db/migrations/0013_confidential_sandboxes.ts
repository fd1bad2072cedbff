// Marks sandboxes that hold what only a scope that reads secrets may see (account secret values, a
// pipeline's env and run token, files restored from such a sandbox's snapshot), so narrower keys
// cannot reach inside them. Sandboxes created with secrets before this column get the mark.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('sandboxes')
    .addColumn('confidential', 'integer', (column) => column.notNull().defaultTo(0))
    .execute();
  await db
    .updateTable('sandboxes')
    .set({ confidential: 1 })
    .where(sql`secrets`, '<>', '[]')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('sandboxes').dropColumn('confidential').execute();
}
