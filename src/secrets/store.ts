// SQL for account secrets (ciphertexts only).
import type { Kysely } from 'kysely';
import type { AccountSecretsTable, Database } from '../core/db/schema.js';

export type SecretRow = AccountSecretsTable;

export async function upsertSecret(db: Kysely<Database>, row: SecretRow): Promise<void> {
  await db
    .insertInto('account_secrets')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'name']).doUpdateSet({ ciphertext: row.ciphertext, updated_at: row.updated_at }))
    .execute();
}

export function findSecret(db: Kysely<Database>, accountId: string, name: string) {
  return db.selectFrom('account_secrets').selectAll().where('account_id', '=', accountId).where('name', '=', name).executeTakeFirst();
}

export function findSecrets(db: Kysely<Database>, accountId: string, names: readonly string[]) {
  return db.selectFrom('account_secrets').selectAll().where('account_id', '=', accountId).where('name', 'in', names).execute();
}

export function listSecrets(db: Kysely<Database>, accountId: string) {
  return db.selectFrom('account_secrets').select(['name', 'created_at', 'updated_at']).where('account_id', '=', accountId).orderBy('name').execute();
}

export async function countSecrets(db: Kysely<Database>, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('account_secrets')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function deleteSecret(db: Kysely<Database>, accountId: string, name: string): Promise<boolean> {
  const result = await db.deleteFrom('account_secrets').where('account_id', '=', accountId).where('name', '=', name).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
