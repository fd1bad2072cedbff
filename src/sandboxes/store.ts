// SQL for sandboxes.
import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { Database, SandboxesTable } from '../core/db/schema.js';

export type SandboxRow = Selectable<SandboxesTable>;

/** Statuses that hold resources and count against the plan's concurrency limit. */
export const LIVE_STATUSES = ['creating', 'running', 'paused', 'restoring'] as const;

export function insertSandbox(db: Kysely<Database>, row: SandboxRow) {
  return db.insertInto('sandboxes').values(row).execute();
}

export function findSandbox(db: Kysely<Database>, accountId: string, id: string) {
  return db.selectFrom('sandboxes').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

export function listSandboxes(db: Kysely<Database>, accountId: string, options: { includeDestroyed: boolean; limit: number; offset: number }) {
  let query = db.selectFrom('sandboxes').selectAll().where('account_id', '=', accountId);
  if (!options.includeDestroyed) query = query.where('status', '!=', 'destroyed');
  return query.orderBy('id', 'desc').limit(options.limit).offset(options.offset).execute();
}

export async function countLiveSandboxes(db: Kysely<Database>, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('sandboxes')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('account_id', '=', accountId)
    .where('status', 'in', LIVE_STATUSES)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Serializes sandbox creation per account on PostgreSQL (SQLite transactions are serialized already). */
export async function lockAccount(db: Kysely<Database>, accountId: string, dialect: 'sqlite' | 'postgres'): Promise<void> {
  if (dialect === 'postgres') await sql`select id from accounts where id = ${accountId} for update`.execute(db);
}

export function updateSandbox(db: Kysely<Database>, id: string, changes: Updateable<SandboxesTable>) {
  return db.updateTable('sandboxes').set(changes).where('id', '=', id).execute();
}

/** Moves a sandbox from one of `from` to `to`; false when it was in none of them (someone else moved it). */
export async function transitionSandbox(db: Kysely<Database>, id: string, from: readonly string[], changes: Updateable<SandboxesTable>): Promise<boolean> {
  const result = await db.updateTable('sandboxes').set(changes).where('id', '=', id).where('status', 'in', from).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Moves a sandbox from one of `from` to `error`; its account id, or null when it was in none of them. */
export async function failSandbox(db: Kysely<Database>, id: string, from: readonly string[], error: string, now: string): Promise<string | null> {
  const row = await db
    .updateTable('sandboxes')
    .set({ status: 'error', error, updated_at: now })
    .where('id', '=', id)
    .where('status', 'in', from)
    .returning('account_id')
    .executeTakeFirst();
  return row?.account_id ?? null;
}

/** This host's sandboxes in these statuses (servers sharing a database each see their own). */
export function sandboxesInStatus(db: Kysely<Database>, hostId: string, statuses: readonly string[]) {
  return db.selectFrom('sandboxes').selectAll().where('host_id', '=', hostId).where('status', 'in', statuses).execute();
}

/** Gives rows from before `host_id` existed to this host: until then one server held them all. */
export async function adoptUnhostedSandboxes(db: Kysely<Database>, hostId: string): Promise<void> {
  await db.updateTable('sandboxes').set({ host_id: hostId }).where('host_id', 'is', null).execute();
}

export async function ownedSandboxIds(db: Kysely<Database>, accountId: string, ids: readonly string[]): Promise<string[]> {
  const rows = await db.selectFrom('sandboxes').select('id').where('account_id', '=', accountId).where('id', 'in', ids).execute();
  return rows.map((row) => row.id);
}

/** Sets `completed_at` unless it is set; the row when this call set it (the caller sends on_complete), else null. */
export async function claimCompletion(db: Kysely<Database>, id: string, at: string): Promise<SandboxRow | null> {
  const row = await db.updateTable('sandboxes').set({ completed_at: at }).where('id', '=', id).where('completed_at', 'is', null).returningAll().executeTakeFirst();
  return row ?? null;
}

/** This host's live sandboxes with a budget: what its budget sweeper checks. */
export function budgetedLiveSandboxes(db: Kysely<Database>, hostId: string) {
  return db.selectFrom('sandboxes').selectAll().where('host_id', '=', hostId).where('status', 'in', LIVE_STATUSES).where('budget', 'is not', null).execute();
}

/** Records budget alerts as raised (bits OR-ed in). */
export async function markBudgetAlertsRaised(db: Kysely<Database>, id: string, bits: number): Promise<void> {
  await db
    .updateTable('sandboxes')
    .set((eb) => ({ budget_alerts_raised: sql<number>`${eb.ref('budget_alerts_raised')} | ${bits}` }))
    .where('id', '=', id)
    .execute();
}

/** This host's running sandboxes that have an idle timeout; the caller compares `last_activity_at` with it. */
export function idleCandidates(db: Kysely<Database>, hostId: string) {
  return db.selectFrom('sandboxes').selectAll().where('host_id', '=', hostId).where('status', '=', 'running').where('timeout', 'is not', null).execute();
}
