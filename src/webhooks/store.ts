// SQL for webhook endpoints (the subscriptions; their deliveries are outbox rows).
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Database, WebhookEndpointsTable } from '../core/db/schema.js';

export type EndpointRow = Selectable<WebhookEndpointsTable>;

export async function insertEndpoint(db: Kysely<Database>, row: EndpointRow): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
}

export function findEndpoint(db: Kysely<Database>, accountId: string, id: string) {
  return db.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export function listEndpoints(db: Kysely<Database>, accountId: string) {
  return db.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

/** The account's enabled endpoints, read in the publishing transaction. */
export function enabledEndpoints(db: Kysely<Database>, accountId: string) {
  return db.selectFrom('webhook_endpoints').selectAll().where('account_id', '=', accountId).where('enabled', '=', 1).orderBy('id').execute();
}

export async function countEndpoints(db: Kysely<Database>, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('webhook_endpoints')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function updateEndpoint(db: Kysely<Database>, accountId: string, id: string, changes: Updateable<WebhookEndpointsTable>): Promise<void> {
  await db.updateTable('webhook_endpoints').set(changes).where('account_id', '=', accountId).where('id', '=', id).execute();
}

export async function deleteEndpoint(db: Kysely<Database>, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('webhook_endpoints').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
