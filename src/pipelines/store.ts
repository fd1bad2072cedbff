// SQL for pipeline definitions and their immutable versions.
import type { Kysely, Selectable } from 'kysely';
import type { Database, PipelinesTable, PipelineVersionsTable } from '../core/db/schema.js';
import type { PipelineStatus } from './engine/statuses.js';

export type PipelineRow = Selectable<PipelinesTable>;
export type VersionRow = Selectable<PipelineVersionsTable>;

export async function insertPipeline(db: Kysely<Database>, row: PipelineRow, version: VersionRow): Promise<void> {
  await db.insertInto('pipelines').values(row).execute();
  await db.insertInto('pipeline_versions').values(version).execute();
}

export async function findPipeline(db: Kysely<Database>, accountId: string, id: string): Promise<PipelineRow | undefined> {
  return db.selectFrom('pipelines').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

export async function findVersion(db: Kysely<Database>, pipelineId: string, version: number): Promise<VersionRow | undefined> {
  return db.selectFrom('pipeline_versions').selectAll().where('pipeline_id', '=', pipelineId).where('version', '=', version).executeTakeFirst();
}

export async function listVersions(db: Kysely<Database>, pipelineId: string): Promise<VersionRow[]> {
  return db.selectFrom('pipeline_versions').selectAll().where('pipeline_id', '=', pipelineId).orderBy('version', 'desc').execute();
}

export async function listPipelines(db: Kysely<Database>, accountId: string, options: { limit: number; offset: number; status?: PipelineStatus }): Promise<PipelineRow[]> {
  let query = db.selectFrom('pipelines').selectAll().where('account_id', '=', accountId);
  if (options.status) query = query.where('status', '=', options.status);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(options.limit).offset(options.offset).execute();
}

/** Moves `version` forward only from `fromVersion`, so two concurrent updates cannot both win. */
export async function bumpVersion(db: Kysely<Database>, id: string, fromVersion: number, updatedAt: string): Promise<boolean> {
  const result = await db
    .updateTable('pipelines')
    .set({ version: fromVersion + 1, updated_at: updatedAt })
    .where('id', '=', id)
    .where('version', '=', fromVersion)
    .where('status', '=', 'active')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) === 1;
}

export async function archivePipeline(db: Kysely<Database>, id: string, updatedAt: string): Promise<void> {
  await db.updateTable('pipelines').set({ status: 'archived', updated_at: updatedAt }).where('id', '=', id).execute();
}
