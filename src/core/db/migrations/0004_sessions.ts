// Agent sessions, their event timeline and trust findings. Events are keyed (session_key, sequence) so a
// replay page is one keyset range scan however long the session; aggregates and per-type counts live on
// the session row so nothing ever counts events.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('sessions')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('sandbox_id', 'text', (c) => c.notNull().references('sandboxes.id').onDelete('cascade'))
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
    .execute();
  await db.schema.createIndex('sessions_sandbox_idx').on('sessions').columns(['sandbox_id', 'status', 'last_activity_at']).execute();
  await db.schema.createIndex('sessions_inactive_idx').on('sessions').columns(['status', 'last_activity_at']).execute();
  await db.schema.createIndex('sessions_trust_alert_pending_idx').on('sessions').column('trust_alert_pending').where(sql.ref('trust_alert_pending'), '=', 1).execute();

  // No foreign key to sessions: it would cost a lookup per inserted event, and events are only ever
  // written in the transaction that holds their session row.
  await db.schema
    .createTable('session_events')
    .addColumn('session_key', 'text', (c) => c.notNull())
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('timestamp', 'text', (c) => c.notNull())
    .addColumn('data', 'text', (c) => c.notNull())
    .addColumn('meta', 'text')
    .addColumn('cost_usd', 'double precision')
    .addColumn('client_id', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('session_events_pk', ['session_key', 'sequence'])
    .execute();
  // Replay filtered by type stays a range scan when that type is rare in a long session.
  await db.schema.createIndex('session_events_type_idx').on('session_events').columns(['session_key', 'type', 'sequence']).execute();
  // Idempotency: an id the client chose is stored once per session.
  await db.schema.createIndex('session_events_client_id_unique').on('session_events').columns(['session_key', 'id']).unique().where(sql.ref('client_id'), '=', 1).execute();

  await db.schema
    .createTable('session_findings')
    .addColumn('session_key', 'text', (c) => c.notNull().references('sessions.key').onDelete('cascade'))
    .addColumn('sequence', 'integer', (c) => c.notNull())
    .addColumn('rule', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('weight', 'integer', (c) => c.notNull())
    .addColumn('penalty', 'integer', (c) => c.notNull())
    .addColumn('evidence', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('session_findings_pk', ['session_key', 'sequence', 'rule'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('session_findings').execute();
  await db.schema.dropTable('session_events').execute();
  await db.schema.dropTable('sessions').execute();
}
