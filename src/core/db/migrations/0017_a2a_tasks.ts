// A task's run session (its cost and trust in sessions), kept on the task so its view names it
// without asking pipelines for the run.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('a2a_tasks').addColumn('session_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('a2a_tasks').dropColumn('session_id').execute();
}
