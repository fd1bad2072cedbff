// The payment provider's webhook events already taken: a redelivered event (same provider and id) is
// answered without being handled again. `processed_at` null: a delivery is handling it now (claimed at
// `claimed_at`; a claim left by a crash is taken over after a while).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('billing_provider_events')
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('account_id', 'text')
    .addColumn('claimed_at', 'text', (c) => c.notNull())
    .addColumn('processed_at', 'text')
    .addPrimaryKeyConstraint('billing_provider_events_pk', ['provider', 'event_id'])
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('billing_provider_events').execute();
}
