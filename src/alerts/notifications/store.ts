// SQL for in-app notifications and the per-account notification config.
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Database, NotificationConfigsTable, NotificationsTable } from '../../core/db/schema.js';
import type { SqlDialect } from '../../core/db/dialect.js';

export type NotificationRow = Selectable<NotificationsTable>;
export type ConfigRow = Selectable<NotificationConfigsTable>;

export function insertNotification(db: Kysely<Database>, row: NotificationRow) {
  return db.insertInto('notifications').values(row).execute();
}

export interface NotificationFilter {
  accountId: string;
  unread?: boolean;
  type?: string;
}

function filtered(db: Kysely<Database>, filter: NotificationFilter) {
  return db
    .selectFrom('notifications')
    .where('account_id', '=', filter.accountId)
    .$if(filter.unread !== undefined, (q) => q.where('read', '=', filter.unread ? 0 : 1))
    .$if(filter.type !== undefined, (q) => q.where('type', '=', filter.type!));
}

export function listNotifications(db: Kysely<Database>, filter: NotificationFilter, page: { limit: number; offset: number }) {
  return filtered(db, filter).selectAll().orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
}

export async function countNotifications(db: Kysely<Database>, filter: NotificationFilter): Promise<number> {
  const row = await filtered(db, filter)
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function findNotification(db: Kysely<Database>, accountId: string, id: string) {
  return db.selectFrom('notifications').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

export function markRead(db: Kysely<Database>, accountId: string, id: string, now: string) {
  return db.updateTable('notifications').set({ read: 1, read_at: now }).where('id', '=', id).where('account_id', '=', accountId).where('read', '=', 0).execute();
}

export async function markAllRead(db: Kysely<Database>, accountId: string, now: string): Promise<number> {
  const result = await db.updateTable('notifications').set({ read: 1, read_at: now }).where('account_id', '=', accountId).where('read', '=', 0).executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** `lock` (PostgreSQL only) holds the row until the transaction ends. */
/** `lockWith`: lock the row until the transaction ends, as that dialect locks rows. */
export function findConfig(db: Kysely<Database>, accountId: string, lockWith: SqlDialect | null = null) {
  const query = db.selectFrom('notification_configs').selectAll().where('account_id', '=', accountId);
  return (lockWith ? lockWith.forUpdate(query) : query).executeTakeFirst();
}

/** Creates the account's config with these defaults unless it exists; concurrent callers create one. */
export function insertConfigIfMissing(db: Kysely<Database>, row: ConfigRow) {
  return db
    .insertInto('notification_configs')
    .values(row)
    .onConflict((oc) => oc.column('account_id').doNothing())
    .execute();
}

export function updateConfig(db: Kysely<Database>, accountId: string, changes: Updateable<NotificationConfigsTable>) {
  return db.updateTable('notification_configs').set(changes).where('account_id', '=', accountId).execute();
}
