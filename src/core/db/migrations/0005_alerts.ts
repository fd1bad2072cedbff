// Alerts with their rules, in-app notifications with the channel configuration, and the durable
// outbox every outbound delivery (notification channels, later sandbox callbacks) goes through.
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('alerts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('sandbox_id', 'text')
    .addColumn('resource_kind', 'text', (c) => c.notNull())
    .addColumn('resource_id', 'text', (c) => c.notNull())
    .addColumn('details', 'text', (c) => c.notNull())
    .addColumn('resolved', 'integer', (c) => c.notNull())
    .addColumn('resolved_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  // At most one open alert per (type, resource): concurrent raises race on this index, one wins.
  await db.schema.createIndex('alerts_one_open_idx').unique().on('alerts').columns(['account_id', 'type', 'resource_kind', 'resource_id']).where(sql.ref('resolved'), '=', 0).execute();
  await db.schema.createIndex('alerts_account_idx').on('alerts').columns(['account_id', 'id']).execute();

  await db.schema
    .createTable('alert_rules')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('threshold', 'double precision')
    .addColumn('channels', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('alert_rules_account_type_unique', ['account_id', 'type'])
    .execute();

  await db.schema
    .createTable('notifications')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('alert_id', 'text', (c) => c.references('alerts.id').onDelete('cascade'))
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('severity', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('sandbox_id', 'text')
    .addColumn('read', 'integer', (c) => c.notNull())
    .addColumn('read_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('notifications_account_idx').on('notifications').columns(['account_id', 'read', 'id']).execute();

  await db.schema
    .createTable('notification_configs')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('email_enabled', 'integer', (c) => c.notNull())
    .addColumn('email_address', 'text')
    .addColumn('chat_a_enabled', 'integer', (c) => c.notNull())
    .addColumn('chat_a_webhook_url', 'text')
    .addColumn('chat_b_enabled', 'integer', (c) => c.notNull())
    .addColumn('chat_b_webhook_url', 'text')
    .addColumn('webhook_enabled', 'integer', (c) => c.notNull())
    .addColumn('webhook_url', 'text')
    .addColumn('webhook_secret', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();

  await db.schema
    .createTable('outbox')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text', (c) => c.references('accounts.id').onDelete('cascade'))
    .addColumn('source_id', 'text')
    .addColumn('target', 'text', (c) => c.notNull())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('max_attempts', 'integer', (c) => c.notNull())
    .addColumn('next_attempt_at', 'text', (c) => c.notNull())
    .addColumn('lease_expires_at', 'text')
    .addColumn('leased_by', 'text')
    .addColumn('last_error', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addColumn('delivered_at', 'text')
    .execute();
  await db.schema.createIndex('outbox_due_idx').on('outbox').columns(['status', 'next_attempt_at']).execute();
  await db.schema.createIndex('outbox_source_idx').on('outbox').columns(['source_id']).execute();
  await db.schema.createIndex('outbox_account_idx').on('outbox').columns(['account_id', 'id']).execute();

  await db.schema
    .createTable('outbox_attempts')
    .addColumn('delivery_id', 'text', (c) => c.notNull().references('outbox.id').onDelete('cascade'))
    .addColumn('attempt', 'integer', (c) => c.notNull())
    .addColumn('worker_id', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('finished_at', 'text')
    .addColumn('outcome', 'text')
    .addColumn('status_code', 'integer')
    .addColumn('error', 'text')
    .addColumn('response_excerpt', 'text')
    .addColumn('duration_ms', 'integer')
    .addPrimaryKeyConstraint('outbox_attempts_pk', ['delivery_id', 'attempt'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('outbox_attempts').execute();
  await db.schema.dropTable('outbox').execute();
  await db.schema.dropTable('notification_configs').execute();
  await db.schema.dropTable('notifications').execute();
  await db.schema.dropTable('alert_rules').execute();
  await db.schema.dropTable('alerts').execute();
}
