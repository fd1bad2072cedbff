// SQL for task webhooks (the subscriptions; their deliveries are outbox rows).
import type { Kysely, Selectable } from 'kysely';
import type { A2aWebhooksTable } from '../../core/db/a2a-tables.js';
import type { Database } from '../../core/db/schema.js';

export type TaskWebhookRow = Selectable<A2aWebhooksTable>;

export async function insertWebhook(db: Kysely<Database>, row: TaskWebhookRow): Promise<void> {
  await db.insertInto('a2a_webhooks').values(row).execute();
}

export function findWebhook(db: Kysely<Database>, accountId: string, id: string) {
  return db.selectFrom('a2a_webhooks').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

/** Oldest first; also what the publisher reads in the transaction of a task change. */
export function listWebhooks(db: Kysely<Database>, accountId: string) {
  return db.selectFrom('a2a_webhooks').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

export async function countWebhooks(db: Kysely<Database>, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('a2a_webhooks')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function deleteWebhook(db: Kysely<Database>, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('a2a_webhooks').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
