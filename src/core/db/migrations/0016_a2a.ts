// Agent delegation (A2A): agents registered over a pipeline of their account, tasks (each one run of
// that pipeline), each task's event log (what its stream replays, by sequence), its messages, its
// artifacts, and where task events are pushed: account-level task webhooks and per-task A2A push configs.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('a2a_agents')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('description', 'text', (c) => c.notNull())
    .addColumn('pipeline_id', 'text', (c) => c.notNull())
    .addColumn('template', 'text')
    /** JSON array of skills `{id, name, description, tags, input_schema}`. */
    .addColumn('skills', 'text', (c) => c.notNull())
    .addColumn('public', 'integer', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('max_cost_per_task', 'double precision')
    .addColumn('rate_limit_rpm', 'integer')
    /** Bumped by every change of the registration; the card's `version` is its string. */
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('a2a_agents_account_name_idx').on('a2a_agents').columns(['account_id', 'name']).unique().execute();
  await db.schema.createIndex('a2a_agents_public_idx').on('a2a_agents').columns(['public', 'enabled']).execute();

  await db.schema
    .createTable('a2a_tasks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('agent_id', 'text', (c) => c.notNull())
    .addColumn('run_id', 'text', (c) => c.notNull())
    /** The A2A contextId (a conversation); a task created without one gets its own. */
    .addColumn('context_id', 'text', (c) => c.notNull())
    .addColumn('skill_id', 'text', (c) => c.notNull())
    .addColumn('input', 'text', (c) => c.notNull())
    .addColumn('priority', 'integer', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('status_message', 'text')
    /** JSON `{percentage, current_step, message}`. */
    .addColumn('progress', 'text', (c) => c.notNull())
    /** JSON, set when the task completes. */
    .addColumn('output', 'text')
    .addColumn('error', 'text')
    .addColumn('cost_usd', 'double precision', (c) => c.notNull())
    .addColumn('max_cost_usd', 'double precision')
    /** The last sequence written to a2a_task_events. */
    .addColumn('event_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text')
    .addColumn('completed_at', 'text')
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('a2a_tasks_run_idx').on('a2a_tasks').column('run_id').unique().execute();
  await db.schema.createIndex('a2a_tasks_account_idx').on('a2a_tasks').columns(['account_id', 'created_at']).execute();
  await db.schema.createIndex('a2a_tasks_agent_idx').on('a2a_tasks').columns(['agent_id', 'status']).execute();
  await db.schema.createIndex('a2a_tasks_status_idx').on('a2a_tasks').column('status').execute();

  await db.schema
    .createTable('a2a_task_events')
    .addColumn('task_id', 'text', (c) => c.notNull().references('a2a_tasks.id').onDelete('cascade'))
    .addColumn('sequence', 'integer', (c) => c.notNull())
    /** `status`, `progress`, `message`, `artifact`, `complete`, `error` (the task stream's event names). */
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('a2a_task_events_pk', ['task_id', 'sequence'])
    .execute();

  await db.schema
    .createTable('a2a_task_messages')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('task_id', 'text', (c) => c.notNull().references('a2a_tasks.id').onDelete('cascade'))
    /** `user` (sent to the task) or `agent` (the task asking, e.g. an approval's message). */
    .addColumn('role', 'text', (c) => c.notNull())
    /** JSON array of parts (`text`, `data`, `file`). */
    .addColumn('parts', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('a2a_task_messages_task_idx').on('a2a_task_messages').columns(['task_id', 'created_at']).execute();

  await db.schema
    .createTable('a2a_task_artifacts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('task_id', 'text', (c) => c.notNull().references('a2a_tasks.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('mime_type', 'text', (c) => c.notNull())
    /** The run state key the artifact was read from. */
    .addColumn('state_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('a2a_task_artifacts_task_idx').on('a2a_task_artifacts').columns(['task_id', 'state_key']).unique().execute();

  await db.schema
    .createTable('a2a_webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    /** JSON array of task event names (`task.completed`, …). */
    .addColumn('events', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('a2a_webhooks_account_idx').on('a2a_webhooks').column('account_id').execute();

  await db.schema
    .createTable('a2a_push_configs')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('task_id', 'text', (c) => c.notNull().references('a2a_tasks.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    /** The client's token, echoed in the X-A2A-Notification-Token header. */
    .addColumn('token', 'text')
    /** JSON of the A2A AuthenticationInfo (`scheme`, `credentials`), or null. */
    .addColumn('authentication', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('a2a_push_configs_task_idx').on('a2a_push_configs').column('task_id').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['a2a_push_configs', 'a2a_webhooks', 'a2a_task_artifacts', 'a2a_task_messages', 'a2a_task_events', 'a2a_tasks', 'a2a_agents']) await db.schema.dropTable(table).execute();
}
