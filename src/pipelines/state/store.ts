// SQL for run state entries. Expired entries are invisible to every read and deleted on the next write.
import type { Kysely, Selectable } from 'kysely';
import type { Database, PipelineRunStateTable } from '../../core/db/schema.js';

export type StateRow = Selectable<PipelineRunStateTable>;

export async function listEntries(db: Kysely<Database>, runId: string, now: string): Promise<StateRow[]> {
  return db.selectFrom('pipeline_run_state').selectAll().where('run_id', '=', runId).where('expires_at', '>', now).orderBy('key').execute();
}

export async function findEntry(db: Kysely<Database>, runId: string, key: string, now: string): Promise<StateRow | undefined> {
  return db.selectFrom('pipeline_run_state').selectAll().where('run_id', '=', runId).where('key', '=', key).where('expires_at', '>', now).executeTakeFirst();
}

export async function purgeExpired(db: Kysely<Database>, now: string, runId?: string): Promise<number> {
  let query = db.deleteFrom('pipeline_run_state').where('expires_at', '<=', now);
  if (runId) query = query.where('run_id', '=', runId);
  return Number((await query.executeTakeFirst()).numDeletedRows);
}

/** Entry count and total bytes of a run, not counting `exceptKey` (the entry about to be replaced). */
export async function usage(db: Kysely<Database>, runId: string, exceptKey: string): Promise<{ entries: number; bytes: number }> {
  const row = await db
    .selectFrom('pipeline_run_state')
    .select((eb) => [eb.fn.countAll<string | number>().as('entries'), eb.fn.coalesce(eb.fn.sum<string | number>('size_bytes'), eb.lit(0)).as('bytes')])
    .where('run_id', '=', runId)
    .where('key', '!=', exceptKey)
    .executeTakeFirstOrThrow();
  return { entries: Number(row.entries), bytes: Number(row.bytes) };
}

export async function upsertEntry(db: Kysely<Database>, row: StateRow): Promise<void> {
  await db
    .insertInto('pipeline_run_state')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['run_id', 'key'])
        .doUpdateSet({ value: row.value, type: row.type, mime_type: row.mime_type, size_bytes: row.size_bytes, created_by: row.created_by, updated_at: row.updated_at, expires_at: row.expires_at }),
    )
    .execute();
}

export async function deleteEntry(db: Kysely<Database>, runId: string, key: string, now: string): Promise<boolean> {
  const result = await db.deleteFrom('pipeline_run_state').where('run_id', '=', runId).where('key', '=', key).where('expires_at', '>', now).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
