// Eval scenarios (a template, a command and weighted checks on its output), suites (ordered lists of
// scenarios) and the recorded results of every eval run, from which baselines are computed.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('eval_scenarios')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('template', 'text', (c) => c.notNull())
    .addColumn('command', 'text', (c) => c.notNull())
    .addColumn('env', 'text', (c) => c.notNull())
    .addColumn('network_mode', 'text', (c) => c.notNull())
    .addColumn('timeout_seconds', 'integer', (c) => c.notNull())
    .addColumn('checks', 'text', (c) => c.notNull())
    .addColumn('pass_threshold', 'double precision', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('eval_scenarios_account_name_unique', ['account_id', 'name'])
    .execute();

  await db.schema
    .createTable('eval_suites')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('scenario_ids', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('eval_suites_account_name_unique', ['account_id', 'name'])
    .execute();

  // A result belongs to exactly one of a scenario or a suite; it outlives neither (cascade).
  await db.schema
    .createTable('eval_results')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('scenario_id', 'text', (c) => c.references('eval_scenarios.id').onDelete('cascade'))
    .addColumn('suite_id', 'text', (c) => c.references('eval_suites.id').onDelete('cascade'))
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('pass_rate', 'double precision', (c) => c.notNull())
    .addColumn('score', 'double precision', (c) => c.notNull())
    .addColumn('cost_usd', 'double precision', (c) => c.notNull())
    .addColumn('scenario_results', 'text', (c) => c.notNull())
    .addColumn('source', 'text', (c) => c.notNull())
    .addColumn('pipeline_run_id', 'text')
    .addColumn('stage_name', 'text')
    .addColumn('duration_ms', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('eval_results_scenario_idx').on('eval_results').columns(['scenario_id', 'id']).execute();
  await db.schema.createIndex('eval_results_suite_idx').on('eval_results').columns(['suite_id', 'id']).execute();

  // Sandboxes an eval run holds right now: a row outlives its run only when the process died, and the
  // next start destroys what it names.
  await db.schema
    .createTable('eval_sandboxes')
    .addColumn('sandbox_id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('eval_sandboxes').execute();
  await db.schema.dropTable('eval_results').execute();
  await db.schema.dropTable('eval_suites').execute();
  await db.schema.dropTable('eval_scenarios').execute();
}
