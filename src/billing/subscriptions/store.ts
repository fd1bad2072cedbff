// SQL for subscriptions. Only transitions.ts writes them; everyone else reads through the service.
import type { Selectable } from 'kysely';
import type { BillingSubscriptionsTable } from '../../core/db/billing-tables.js';
import type { Db, Tx } from '../../core/db/handles.js';
import type { BillingProviderName, Subscription } from '../contract.js';

export type SubscriptionRow = Selectable<BillingSubscriptionsTable>;

export function findSubscription(db: Db, accountId: string): Promise<SubscriptionRow | undefined> {
  return db.selectFrom('billing_subscriptions').selectAll().where('account_id', '=', accountId).executeTakeFirst();
}

export async function insertSubscription(trx: Tx, row: SubscriptionRow): Promise<void> {
  await trx.insertInto('billing_subscriptions').values(row).execute();
}

export async function updateSubscription(trx: Tx, accountId: string, changes: Partial<SubscriptionRow>): Promise<void> {
  await trx.updateTable('billing_subscriptions').set(changes).where('account_id', '=', accountId).execute();
}

export async function accountOfCustomer(db: Db, provider: BillingProviderName, customerId: string): Promise<string | null> {
  const row = await db.selectFrom('billing_subscriptions').select('account_id').where('provider', '=', provider).where('provider_customer_id', '=', customerId).executeTakeFirst();
  return row?.account_id ?? null;
}

/** Accounts whose period (manual or free), scheduled cancel or grace period has run out at `now`, oldest first. */
export async function dueAccounts(db: Db, now: string, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('billing_subscriptions')
    .select('account_id')
    .where((eb) =>
      eb.or([
        // A paid stripe period moves on with the provider's events, not with the clock.
        eb.and([eb('current_period_end', '<=', now), eb.or([eb('provider', '=', 'manual'), eb('plan', '=', 'free'), eb('cancel_at_period_end', '=', 1)])]),
        eb.and([eb('status', '=', 'past_due'), eb('grace_ends_at', '<=', now)]),
      ]),
    )
    .orderBy('current_period_end')
    .limit(limit)
    .execute();
  return rows.map((row) => row.account_id);
}

/** Subscription status of each of these accounts that has a row. */
export async function statusesOf(db: Db, accountIds: string[]): Promise<Map<string, SubscriptionRow>> {
  if (accountIds.length === 0) return new Map();
  const rows = await db.selectFrom('billing_subscriptions').selectAll().where('account_id', 'in', accountIds).execute();
  return new Map(rows.map((row) => [row.account_id, row]));
}

export function subscriptionOf(row: SubscriptionRow): Subscription {
  return {
    accountId: row.account_id,
    plan: row.plan,
    status: row.status,
    provider: row.provider,
    currentPeriodStart: row.current_period_start,
    currentPeriodEnd: row.current_period_end,
    cancelAtPeriodEnd: row.cancel_at_period_end === 1,
    graceEndsAt: row.grace_ends_at,
    providerCustomerId: row.provider_customer_id,
    providerSubscriptionId: row.provider_subscription_id,
    updatedAt: row.updated_at,
  };
}

/** The earliest moment a row becomes due (as dueAccounts judges), or null when none will. */
export async function nextDueAt(db: Db): Promise<string | null> {
  const period = await db
    .selectFrom('billing_subscriptions')
    .select((eb) => eb.fn.min('current_period_end').as('at'))
    .where((eb) => eb.or([eb('provider', '=', 'manual'), eb('plan', '=', 'free'), eb('cancel_at_period_end', '=', 1)]))
    .executeTakeFirst();
  const grace = await db
    .selectFrom('billing_subscriptions')
    .select((eb) => eb.fn.min('grace_ends_at').as('at'))
    .where('status', '=', 'past_due')
    .executeTakeFirst();
  const times = [period?.at, grace?.at].filter((at): at is string => typeof at === 'string');
  return times.length ? times.sort()[0] : null;
}
