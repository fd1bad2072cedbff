// SQL for runs, their stage rows, attempts, sandboxes and timeline events. Functions that change a run
// expect to be called inside the transaction that holds the run's lock (see lockRun).
import { type Kysely, type Selectable } from 'kysely';
import type { SqlDialect } from '../../core/db/dialect.js';
import type { Database, PipelineRunsTable, PipelineRunStagesTable, PipelineStageAttemptsTable } from '../../core/db/schema.js';
import type { StageType } from '../stages/contract.js';
import type { Tx } from '../../core/db/handles.js';

export type RunRow = Selectable<PipelineRunsTable>;
export type RunStageRow = Selectable<PipelineRunStagesTable>;
export type AttemptRow = Selectable<PipelineStageAttemptsTable>;

/** Reads the run and, on PostgreSQL, locks its row until the transaction ends: one decision at a time per run. */
export async function lockRun(trx: Tx, dialect: SqlDialect, runId: string): Promise<RunRow | undefined> {
  return dialect.forUpdate(trx.selectFrom('pipeline_runs').selectAll().where('id', '=', runId)).executeTakeFirst();
}

export async function findRun(db: Kysely<Database>, accountId: string, pipelineId: string, runId: string): Promise<RunRow | undefined> {
  return db.selectFrom('pipeline_runs').selectAll().where('id', '=', runId).where('account_id', '=', accountId).where('pipeline_id', '=', pipelineId).executeTakeFirst();
}

export async function listRuns(db: Kysely<Database>, pipelineId: string, page: { limit: number; offset: number }): Promise<RunRow[]> {
  return db.selectFrom('pipeline_runs').selectAll().where('pipeline_id', '=', pipelineId).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
}

export async function stagesOf(db: Kysely<Database>, runId: string): Promise<RunStageRow[]> {
  return db.selectFrom('pipeline_run_stages').selectAll().where('run_id', '=', runId).orderBy('position').execute();
}

export async function updateRun(db: Kysely<Database>, runId: string, changes: Partial<RunRow>): Promise<void> {
  await db.updateTable('pipeline_runs').set(changes).where('id', '=', runId).execute();
}

export async function updateStage(db: Kysely<Database>, stageId: string, changes: Partial<RunStageRow>): Promise<void> {
  await db.updateTable('pipeline_run_stages').set(changes).where('id', '=', stageId).execute();
}

/** Appends to the run's timeline; the caller holds the run lock, so sequences have no gaps. */
export async function appendEvent(db: Kysely<Database>, run: RunRow, type: string, stage: string | null, data: Record<string, unknown>, at: string): Promise<void> {
  run.event_count += 1;
  await db
    .insertInto('pipeline_run_events')
    .values({ run_id: run.id, sequence: run.event_count, type, stage, data: JSON.stringify(data), created_at: at })
    .execute();
  await db.updateTable('pipeline_runs').set({ event_count: run.event_count }).where('id', '=', run.id).execute();
}

export async function eventsOf(db: Kysely<Database>, runId: string, afterSequence: number, limit: number) {
  return db.selectFrom('pipeline_run_events').selectAll().where('run_id', '=', runId).where('sequence', '>', afterSequence).orderBy('sequence').limit(limit).execute();
}

export async function attemptsOf(db: Kysely<Database>, stageId: string): Promise<AttemptRow[]> {
  return db.selectFrom('pipeline_stage_attempts').selectAll().where('run_stage_id', '=', stageId).orderBy('attempt').execute();
}

/** Candidate stage ids for a claim: due pending stages of runs that may progress, and running stages whose lease expired. */
export async function claimable(trx: Tx, dialect: SqlDialect, now: string, limit: number, types: StageType[] | null): Promise<RunStageRow[]> {
  let base = trx
    .selectFrom('pipeline_run_stages as s')
    .innerJoin('pipeline_runs as r', 'r.id', 's.run_id')
    .selectAll('s')
    .where((eb) =>
      eb.or([
        eb.and([eb('s.status', '=', 'pending'), eb('s.next_attempt_at', '<=', now), eb('r.status', 'in', ['pending', 'running'])]),
        eb.and([eb('s.status', '=', 'running'), eb('s.lease_expires_at', '<', now)]),
      ]),
    )
    // A run's priority (an A2A task's) first, then the longest due.
    .orderBy('r.priority', 'desc')
    .orderBy('s.next_attempt_at')
    .limit(limit);
  if (types) base = base.where('s.type', 'in', types);
  // Locks both the stage and its run without waiting: a row another worker holds is simply skipped.
  return dialect.forUpdateSkipLocked(base, ['s', 'r']).execute();
}

/** The sandboxes the run's stage attempts created. */
export async function sandboxesOfRun(db: Kysely<Database>, runId: string): Promise<string[]> {
  return (await db.selectFrom('pipeline_run_sandboxes').select('sandbox_id').where('run_id', '=', runId).execute()).map((row) => row.sandbox_id);
}

/** What the run's stages reported spending (a2a, eval), in USD. */
export async function reportedCostUsd(db: Kysely<Database>, runId: string): Promise<number> {
  const row = await db
    .selectFrom('pipeline_run_stages')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('cost_usd'), eb.lit(0)).as('total'))
    .where('run_id', '=', runId)
    .executeTakeFirstOrThrow();
  return Number(row.total);
}
