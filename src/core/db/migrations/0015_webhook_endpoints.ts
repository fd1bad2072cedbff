// Account-level webhook endpoints: where the account's subscribed lifecycle events (sandbox.*,
// pipeline.*) are pushed. Deliveries themselves are outbox rows (kind `webhook.event`, source_id = the
// endpoint), so this table holds only the subscription.
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('webhook_endpoints')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('url', 'text', (c) => c.notNull())
    /** JSON array of event types, or `["*"]` for every type. */
    .addColumn('events', 'text', (c) => c.notNull())
    /** Standard Webhooks `whsec_…` signing secret. */
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('description', 'text')
    .addColumn('enabled', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  // Fan-out reads an account's enabled endpoints in every publishing transaction.
  await db.schema.createIndex('webhook_endpoints_account_idx').on('webhook_endpoints').columns(['account_id', 'enabled']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('webhook_endpoints').execute();
}
