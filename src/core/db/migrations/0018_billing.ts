// Billing: the subscription of every account that ever left the free plan or was given a provider
// customer (an account without a row is on free, active, on the calendar month), and the plan requests
// accounts make to the operators of a server without a payment processor (the manual provider).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('billing_subscriptions')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id').onDelete('cascade'))
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('current_period_start', 'text', (c) => c.notNull())
    .addColumn('current_period_end', 'text', (c) => c.notNull())
    .addColumn('cancel_at_period_end', 'integer', (c) => c.notNull())
    .addColumn('grace_ends_at', 'text')
    .addColumn('provider_customer_id', 'text')
    .addColumn('provider_subscription_id', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('billing_subscriptions_customer_idx').on('billing_subscriptions').columns(['provider', 'provider_customer_id']).execute();
  // The sweeper's question: which subscriptions have a period, a cancel or a grace period that ran out.
  await db.schema.createIndex('billing_subscriptions_period_end_idx').on('billing_subscriptions').column('current_period_end').execute();

  await db.schema
    .createTable('billing_plan_requests')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id').onDelete('cascade'))
    .addColumn('plan', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('reason', 'text')
    .addColumn('decided_by', 'text')
    .addColumn('decided_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('billing_plan_requests_account_idx').on('billing_plan_requests').columns(['account_id', 'status']).execute();
  await db.schema.createIndex('billing_plan_requests_status_idx').on('billing_plan_requests').columns(['status', 'created_at']).execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('billing_plan_requests').execute();
  await db.schema.dropTable('billing_subscriptions').execute();
}
