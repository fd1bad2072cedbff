// A session belongs to a sandbox or to a pipeline run (its timeline of pipeline.* events): sandbox_id
// becomes nullable, pipeline_run_id is added, and a check keeps exactly one of them set. A run has at
// most one session, and the run row names it.
import { SqliteAdapter, sql, type Kysely } from 'kysely';

const OWNER_CHECK = sql`(sandbox_id is null) <> (pipeline_run_id is null)`;

async function createSessionIndexes(db: Kysely<any>): Promise<void> {
  await db.schema.createIndex('sessions_sandbox_idx').on('sessions').columns(['sandbox_id', 'status', 'last_activity_at']).execute();
  await db.schema.createIndex('sessions_inactive_idx').on('sessions').columns(['status', 'last_activity_at']).execute();
  await db.schema.createIndex('sessions_trust_alert_pending_idx').on('sessions').column('trust_alert_pending').where(sql.ref('trust_alert_pending'), '=', 1).execute();
}

/**
 * SQLite cannot drop NOT NULL: the table is rebuilt (sqlite.org/lang_altertable.html, "other kinds of
 * table schema changes"). Foreign keys are switched off around it, or dropping the old table would
 * cascade into session_findings; they are checked before the commit. Kysely runs SQLite migrations
 * outside a transaction, so the pragma takes effect and the rebuild gets a transaction of its own.
 */
async function rebuildSqlite(db: Kysely<any>): Promise<void> {
  await sql`pragma foreign_keys = off`.execute(db);
  try {
    await db.transaction().execute(async (trx) => {
      await trx.schema
        .createTable('sessions_rebuilt')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
        .addColumn('sandbox_id', 'text', (c) => c.references('sandboxes.id').onDelete('cascade'))
        .addColumn('pipeline_run_id', 'text', (c) => c.references('pipeline_runs.id').onDelete('cascade'))
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('agent_type', 'text')
        .addColumn('model', 'text')
        .addColumn('tokens_in', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('tokens_out', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('llm_cost_usd', 'double precision', (c) => c.notNull().defaultTo(0))
        .addColumn('compute_cost_usd', 'double precision', (c) => c.notNull().defaultTo(0))
        .addColumn('trust_score', 'integer', (c) => c.notNull().defaultTo(100))
        .addColumn('trust_alerts_raised', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('trust_alert_pending', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('event_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('llm_call_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('tool_call_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('file_op_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('command_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('network_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('error_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('lifecycle_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('started_at', 'text')
        .addColumn('last_event_at', 'text')
        .addColumn('ended_at', 'text')
        .addColumn('last_activity_at', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('sessions_account_id_unique', ['account_id', 'id'])
        .addCheckConstraint('sessions_owner_check', OWNER_CHECK)
        .execute();
      const columns = sql.raw(
        'key, id, account_id, sandbox_id, status, agent_type, model, tokens_in, tokens_out, llm_cost_usd, compute_cost_usd, trust_score, trust_alerts_raised, trust_alert_pending, event_count, llm_call_count, tool_call_count, file_op_count, command_count, network_count, error_count, lifecycle_count, started_at, last_event_at, ended_at, last_activity_at, created_at, updated_at',
      );
      await sql`insert into sessions_rebuilt (${columns}) select ${columns} from sessions`.execute(trx);
      await trx.schema.dropTable('sessions').execute();
      await trx.schema.alterTable('sessions_rebuilt').renameTo('sessions').execute();
      await createSessionIndexes(trx);
      const broken = await sql<{ table: string }>`pragma foreign_key_check`.execute(trx);
      if (broken.rows.length) throw new Error(`rebuilding sessions left ${broken.rows.length} broken foreign key(s), first in ${broken.rows[0].table}`);
    });
  } finally {
    await sql`pragma foreign_keys = on`.execute(db);
  }
}

async function alterPostgres(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('sessions')
    .alterColumn('sandbox_id', (c) => c.dropNotNull())
    .execute();
  await db.schema
    .alterTable('sessions')
    .addColumn('pipeline_run_id', 'text', (c) => c.references('pipeline_runs.id').onDelete('cascade'))
    .execute();
  await db.schema.alterTable('sessions').addCheckConstraint('sessions_owner_check', OWNER_CHECK).execute();
}

export async function up(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) await rebuildSqlite(db);
  else await alterPostgres(db);
  await db.schema.createIndex('sessions_pipeline_run_unique').on('sessions').column('pipeline_run_id').unique().execute();
  // Null for runs created before run sessions existed.
  await db.schema.alterTable('pipeline_runs').addColumn('session_id', 'text').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  if (db.getExecutor().adapter instanceof SqliteAdapter) throw new Error('0011_run_sessions cannot be reverted on SQLite: restore a backup');
  await db.schema.alterTable('pipeline_runs').dropColumn('session_id').execute();
  await db.deleteFrom('sessions').where('pipeline_run_id', 'is not', null).execute();
  await db.schema.dropIndex('sessions_pipeline_run_unique').execute();
  await db.schema.alterTable('sessions').dropConstraint('sessions_owner_check').execute();
  await db.schema.alterTable('sessions').dropColumn('pipeline_run_id').execute();
  await db.schema
    .alterTable('sessions')
    .alterColumn('sandbox_id', (c) => c.setNotNull())
    .execute();
}
