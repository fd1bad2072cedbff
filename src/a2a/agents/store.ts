// SQL for agent registrations (a2a_agents). Skills are stored as one JSON column.
import type { Kysely, Selectable, Updateable } from 'kysely';
import type { A2aAgentsTable } from '../../core/db/a2a-tables.js';
import type { Database } from '../../core/db/schema.js';

export type AgentRow = Selectable<A2aAgentsTable>;

export async function insertAgent(db: Kysely<Database>, row: AgentRow): Promise<void> {
  await db.insertInto('a2a_agents').values(row).execute();
}

export function findAgent(db: Kysely<Database>, accountId: string, id: string) {
  return db.selectFrom('a2a_agents').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export function findPublicAgent(db: Kysely<Database>, id: string) {
  return db.selectFrom('a2a_agents').selectAll().where('id', '=', id).where('public', '=', 1).where('enabled', '=', 1).executeTakeFirst();
}

/** Any account's agent by id (its owner decides, with a key, whether it may see a private card). */
export function findAnyAgent(db: Kysely<Database>, id: string) {
  return db.selectFrom('a2a_agents').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listAgents(db: Kysely<Database>, accountId: string) {
  return db.selectFrom('a2a_agents').selectAll().where('account_id', '=', accountId).orderBy('id').execute();
}

export function listPublicAgents(db: Kysely<Database>, limit: number) {
  return db.selectFrom('a2a_agents').selectAll().where('public', '=', 1).where('enabled', '=', 1).orderBy('id').limit(limit).execute();
}

export async function countAgents(db: Kysely<Database>, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('a2a_agents')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Applies the change only if the row is still at `version` (answers false when it moved meanwhile or is gone). */
export async function updateAgent(db: Kysely<Database>, accountId: string, id: string, version: number, changes: Updateable<A2aAgentsTable>): Promise<boolean> {
  const result = await db.updateTable('a2a_agents').set(changes).where('account_id', '=', accountId).where('id', '=', id).where('version', '=', version).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export async function deleteAgent(db: Kysely<Database>, accountId: string, id: string): Promise<boolean> {
  const result = await db.deleteFrom('a2a_agents').where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
