// Pipelines: immutable versioned definitions, runs, one row per stage of a run (the unit the engine
// leases), one row per attempt (its logs and exit code), the run's key/value state and the run's
// timeline of lifecycle events.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('pipelines')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('pipelines_account_name_unique', ['account_id', 'name'])
    .execute();

  await db.schema
    .createTable('pipeline_versions')
    .addColumn('pipeline_id', 'text', (c) => c.notNull().references('pipelines.id').onDelete('cascade'))
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('stages', 'text', (c) => c.notNull())
    .addColumn('defaults', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('pipeline_versions_pk', ['pipeline_id', 'version'])
    .execute();

  await db.schema
    .createTable('pipeline_runs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('pipeline_id', 'text', (c) => c.notNull().references('pipelines.id').onDelete('cascade'))
    .addColumn('pipeline_name', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('trigger', 'text', (c) => c.notNull())
    .addColumn('input', 'text', (c) => c.notNull())
    .addColumn('error', 'text')
    .addColumn('event_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('completed_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pipeline_runs_pipeline_idx').on('pipeline_runs').columns(['pipeline_id', 'created_at']).execute();
  await db.schema.createIndex('pipeline_runs_status_idx').on('pipeline_runs').column('status').execute();

  await db.schema
    .createTable('pipeline_run_stages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('run_id', 'text', (c) => c.notNull().references('pipeline_runs.id').onDelete('cascade'))
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('next_attempt_at', 'text')
    .addColumn('lease_owner', 'text')
    .addColumn('lease_expires_at', 'text')
    .addColumn('exit_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('gate_result', 'text')
    .addColumn('cost_usd', 'double precision', (c) => c.notNull().defaultTo(0))
    .addColumn('approval_deadline', 'text')
    .addColumn('approval_decision', 'text')
    .addColumn('approval_by', 'text')
    .addColumn('approval_comment', 'text')
    .addColumn('approval_at', 'text')
    .addColumn('started_at', 'text')
    .addColumn('completed_at', 'text')
    .addColumn('duration_ms', 'integer')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('pipeline_run_stages_name_unique', ['run_id', 'name'])
    .execute();
  // The claim query: ready stages by due time, and running stages by lease expiry.
  await db.schema.createIndex('pipeline_run_stages_claim_idx').on('pipeline_run_stages').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('pipeline_run_stages_lease_idx').on('pipeline_run_stages').columns(['status', 'lease_expires_at']).execute();

  // (run_stage_id, attempt) is the primary key: two workers can never both record the same attempt.
  await db.schema
    .createTable('pipeline_stage_attempts')
    .addColumn('run_stage_id', 'text', (c) => c.notNull().references('pipeline_run_stages.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('worker_id', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('exit_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('sandbox_id', 'text')
    .addColumn('stdout', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('stderr', 'text', (c) => c.notNull().defaultTo(''))
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('completed_at', 'text')
    .addPrimaryKeyConstraint('pipeline_stage_attempts_pk', ['run_stage_id', 'attempt'])
    .execute();

  // Every sandbox a stage attempt created: cost of the run so far, and clean-up after a lost worker.
  await db.schema
    .createTable('pipeline_run_sandboxes')
    .addColumn('sandbox_id', 'text', (c) => c.primaryKey())
    .addColumn('run_id', 'text', (c) => c.notNull().references('pipeline_runs.id').onDelete('cascade'))
    .addColumn('run_stage_id', 'text', (c) => c.notNull())
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('pipeline_run_sandboxes_run_idx').on('pipeline_run_sandboxes').columns(['run_id']).execute();
  await db.schema.createIndex('pipeline_run_sandboxes_stage_idx').on('pipeline_run_sandboxes').columns(['run_stage_id', 'attempt']).execute();

  await db.schema
    .createTable('pipeline_run_state')
    .addColumn('run_id', 'text', (c) => c.notNull().references('pipeline_runs.id').onDelete('cascade'))
    .addColumn('key', 'text', (c) => c.notNull())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text')
    .addColumn('size_bytes', 'integer', (c) => c.notNull())
    .addColumn('created_by', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('pipeline_run_state_pk', ['run_id', 'key'])
    .execute();
  await db.schema.createIndex('pipeline_run_state_expiry_idx').on('pipeline_run_state').column('expires_at').execute();

  await db.schema
    .createTable('pipeline_run_events')
    .addColumn('run_id', 'text', (c) => c.notNull().references('pipeline_runs.id').onDelete('cascade'))
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('stage', 'text')
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('pipeline_run_events_pk', ['run_id', 'sequence'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['pipeline_run_events', 'pipeline_run_state', 'pipeline_run_sandboxes', 'pipeline_stage_attempts', 'pipeline_run_stages', 'pipeline_runs', 'pipeline_versions', 'pipelines']) {
    await db.schema.dropTable(table).execute();
  }
}
