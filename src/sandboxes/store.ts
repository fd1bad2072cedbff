// SQL for sandboxes.
import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import { prepared } from '../core/db/prepared.js';
import type { Database, SandboxesTable } from '../core/db/schema.js';
import { LIVE_STATUSES, type SandboxStatus } from './lifecycle/contract.js';

/** A sandbox record; only lifecycle/ writes its `status`. */
export type SandboxRow = Omit<Selectable<SandboxesTable>, 'status'> & { status: SandboxStatus };

export { LIVE_STATUSES };

export function insertSandbox(db: Kysely<Database>, row: SandboxRow) {
  return db.insertInto('sandboxes').values(row).execute();
}

export async function findSandbox(db: Kysely<Database>, accountId: string, id: string): Promise<SandboxRow | undefined> {
  return (await db.selectFrom('sandboxes').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst()) as SandboxRow | undefined;
}

export async function findSandboxById(db: Kysely<Database>, id: string): Promise<SandboxRow | undefined> {
  return (await db.selectFrom('sandboxes').selectAll().where('id', '=', id).executeTakeFirst()) as SandboxRow | undefined;
}

export async function listSandboxes(db: Kysely<Database>, accountId: string, options: { includeDestroyed: boolean; limit: number; offset: number }): Promise<SandboxRow[]> {
  let query = db.selectFrom('sandboxes').selectAll().where('account_id', '=', accountId);
  if (!options.includeDestroyed) query = query.where('status', '!=', 'destroyed');
  return (await query.orderBy('id', 'desc').limit(options.limit).offset(options.offset).execute()) as SandboxRow[];
}

/** Sandboxes the account created per UTC day, for those created in [fromIso, toIso). */
export async function createdPerDay(db: Kysely<Database>, accountId: string, fromIso: string, toIso: string): Promise<{ day: string; count: number }[]> {
  const rows = await createdPerDayQuery(db, accountId, fromIso, toIso);
  return rows.map((row) => ({ day: row.day, count: Number(row.n) }));
}

const createdPerDayQuery = prepared((db, accountId, fromIso, toIso) => {
  const day = sql<string>`substr(created_at, 1, 10)`;
  return db
    .selectFrom('sandboxes')
    .select((eb) => [day.as('day'), eb.fn.countAll<number | string>().as('n')])
    .where('account_id', '=', accountId)
    .where('created_at', '>=', fromIso)
    .where('created_at', '<', toIso)
    .groupBy(day);
});

/** Ids of the account's sandboxes running on the server `hostId`. */
export async function runningSandboxIdsOf(db: Kysely<Database>, accountId: string, hostId: string): Promise<string[]> {
  const rows = await db.selectFrom('sandboxes').select('id').where('account_id', '=', accountId).where('host_id', '=', hostId).where('status', '=', 'running').execute();
  return rows.map((row) => row.id);
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

/** Live sandboxes on one server (its node's admission limit). */
export async function countLiveSandboxesOnHost(db: Kysely<Database>, hostId: string): Promise<number> {
  const row = await db
    .selectFrom('sandboxes')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('host_id', '=', hostId)
    .where('status', 'in', LIVE_STATUSES)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Writes columns other than `status` (lifecycle/ writes that one through `transitionSandbox`). */
export function updateSandbox(db: Kysely<Database>, id: string, changes: Omit<Updateable<SandboxesTable>, 'status'>) {
  return db.updateTable('sandboxes').set(changes).where('id', '=', id).execute();
}

/** For lifecycle/ only: moves a sandbox from one of `from` to `changes.status`; false when it was in none of them. */
export async function transitionSandbox(db: Kysely<Database>, id: string, from: readonly SandboxStatus[], changes: Updateable<SandboxesTable> & { status: SandboxStatus }): Promise<boolean> {
  const result = await db.updateTable('sandboxes').set(changes).where('id', '=', id).where('status', 'in', from).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** This host's sandboxes in these statuses (servers sharing a database each see their own). */
export async function sandboxesInStatus(db: Kysely<Database>, hostId: string, statuses: readonly SandboxStatus[]): Promise<SandboxRow[]> {
  return (await db.selectFrom('sandboxes').selectAll().where('host_id', '=', hostId).where('status', 'in', statuses).execute()) as SandboxRow[];
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
  return (row as SandboxRow | undefined) ?? null;
}

/** This host's live sandboxes with a budget: what its budget sweeper checks. */
export async function budgetedLiveSandboxes(db: Kysely<Database>, hostId: string): Promise<SandboxRow[]> {
  return (await db.selectFrom('sandboxes').selectAll().where('host_id', '=', hostId).where('status', 'in', LIVE_STATUSES).where('budget', 'is not', null).execute()) as SandboxRow[];
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
export async function idleCandidates(db: Kysely<Database>, hostId: string): Promise<SandboxRow[]> {
  return (await db.selectFrom('sandboxes').selectAll().where('host_id', '=', hostId).where('status', '=', 'running').where('timeout', 'is not', null).execute()) as SandboxRow[];
}
