// SQL for snapshots.
import { sql, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { Database, SnapshotsTable } from '../core/db/schema.js';
import type { SnapshotStatus } from './contract.js';

export type SnapshotRow = Selectable<SnapshotsTable>;

export function insertSnapshot(db: Kysely<Database>, row: SnapshotRow) {
  return db.insertInto('snapshots').values(row).execute();
}

export function findSnapshot(db: Kysely<Database>, accountId: string, id: string) {
  return db.selectFrom('snapshots').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

/** For the open download route: the signature already proved who may read it. */
export function findSnapshotById(db: Kysely<Database>, id: string) {
  return db.selectFrom('snapshots').selectAll().where('id', '=', id).executeTakeFirst();
}

export function listSandboxSnapshots(db: Kysely<Database>, sandboxId: string) {
  return db.selectFrom('snapshots').selectAll().where('sandbox_id', '=', sandboxId).orderBy('id', 'desc').execute();
}

/** Snapshots that hold (or are about to hold) storage: everything but failed ones. */
export async function countSandboxSnapshots(db: Kysely<Database>, sandboxId: string): Promise<number> {
  const row = await db
    .selectFrom('snapshots')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('sandbox_id', '=', sandboxId)
    .where('status', '!=', 'failed')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function accountSnapshotBytes(db: Kysely<Database>, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('snapshots')
    .select(sql<number | string | null>`sum(size_bytes)`.as('total'))
    .where('account_id', '=', accountId)
    .where('status', '=', 'completed')
    .executeTakeFirstOrThrow();
  return Number(row.total ?? 0);
}

export function updateSnapshot(db: Kysely<Database>, id: string, changes: Updateable<SnapshotsTable>) {
  return db.updateTable('snapshots').set(changes).where('id', '=', id).execute();
}

export function deleteSnapshot(db: Kysely<Database>, id: string) {
  return db.deleteFrom('snapshots').where('id', '=', id).execute();
}

export function previousPauseSnapshots(db: Kysely<Database>, sandboxId: string, exceptId: string) {
  return db.selectFrom('snapshots').selectAll().where('sandbox_id', '=', sandboxId).where('kind', '=', 'pause').where('id', '!=', exceptId).execute();
}

export function snapshotsInStatus(db: Kysely<Database>, status: SnapshotStatus) {
  return db.selectFrom('snapshots').selectAll().where('status', '=', status).execute();
}
