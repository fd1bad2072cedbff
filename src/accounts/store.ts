// SQL for accounts, API keys and dashboard sessions.
import type { Kysely, Selectable } from 'kysely';
import type { AccountsTable, ApiKeysTable, Database, DashboardSessionsTable } from '../core/db/schema.js';

export type AccountRow = Selectable<AccountsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type SessionRow = Selectable<DashboardSessionsTable>;

export function insertAccount(db: Kysely<Database>, row: AccountRow) {
  return db.insertInto('accounts').values(row).execute();
}

export function findAccountById(db: Kysely<Database>, id: string) {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

export function findAccountByEmail(db: Kysely<Database>, emailNormalized: string) {
  return db.selectFrom('accounts').selectAll().where('email_normalized', '=', emailNormalized).executeTakeFirst();
}

export async function setPlan(db: Kysely<Database>, id: string, plan: AccountRow['plan'], at: string): Promise<void> {
  await db.updateTable('accounts').set({ plan, updated_at: at }).where('id', '=', id).execute();
}

export function listAccounts(db: Kysely<Database>) {
  return db.selectFrom('accounts').selectAll().orderBy('created_at').orderBy('id').execute();
}

export function oldestAccount(db: Kysely<Database>) {
  return db.selectFrom('accounts').select('id').orderBy('created_at').orderBy('id').limit(1).executeTakeFirst();
}

export async function countAccounts(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('accounts')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export function insertApiKey(db: Kysely<Database>, row: ApiKeyRow) {
  return db.insertInto('api_keys').values(row).execute();
}

export function listActiveApiKeys(db: Kysely<Database>, accountId: string) {
  return db.selectFrom('api_keys').selectAll().where('account_id', '=', accountId).where('revoked_at', 'is', null).orderBy('id').execute();
}

/** The key with this digest and its owner's plan, whatever its state; the caller judges expiry and revocation. */
export function findApiKeyByHash(db: Kysely<Database>, keyHash: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .select(['api_keys.id', 'api_keys.account_id', 'api_keys.scope', 'api_keys.expires_at', 'api_keys.revoked_at', 'accounts.plan'])
    .where('api_keys.key_hash', '=', keyHash)
    .executeTakeFirst();
}

export async function revokeApiKey(db: Kysely<Database>, accountId: string, id: string, at: string): Promise<boolean> {
  const result = await db.updateTable('api_keys').set({ revoked_at: at }).where('id', '=', id).where('account_id', '=', accountId).where('revoked_at', 'is', null).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export function touchApiKey(db: Kysely<Database>, id: string, at: string) {
  return db.updateTable('api_keys').set({ last_used_at: at }).where('id', '=', id).execute();
}

export function insertSession(db: Kysely<Database>, row: SessionRow) {
  return db.insertInto('dashboard_sessions').values(row).execute();
}

export function findSessionByHash(db: Kysely<Database>, tokenHash: string) {
  return db
    .selectFrom('dashboard_sessions')
    .innerJoin('accounts', 'accounts.id', 'dashboard_sessions.account_id')
    .select(['dashboard_sessions.account_id', 'dashboard_sessions.expires_at', 'accounts.plan'])
    .where('dashboard_sessions.token_hash', '=', tokenHash)
    .executeTakeFirst();
}

export function deleteSessionByHash(db: Kysely<Database>, tokenHash: string) {
  return db.deleteFrom('dashboard_sessions').where('token_hash', '=', tokenHash).execute();
}

export function deleteExpiredSessions(db: Kysely<Database>, now: string) {
  return db.deleteFrom('dashboard_sessions').where('expires_at', '<', now).execute();
}

/**
 * Takes the account row's write lock until the transaction ends (a no-op update: the same statement on
 * SQLite, whose write transactions are serialized anyway, and PostgreSQL), so per-account limit checks
 * (concurrent sandboxes, snapshot storage) count and insert without a race.
 */
export async function lockAccount(db: Kysely<Database>, accountId: string): Promise<void> {
  await db
    .updateTable('accounts')
    .set((eb) => ({ plan: eb.ref('plan') }))
    .where('id', '=', accountId)
    .execute();
}
