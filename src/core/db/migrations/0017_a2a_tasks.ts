// A task's run session (its cost and trust in sessions), kept on the task so its view names it
// without asking pipelines for the run; and a run's priority (a task's), which orders stage claims.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('a2a_tasks').addColumn('session_id', 'text').execute();
  await db.schema
    .alterTable('pipeline_runs')
    .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('pipeline_runs').dropColumn('priority').execute();
  await db.schema.alterTable('a2a_tasks').dropColumn('session_id').execute();
}
