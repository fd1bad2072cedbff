// SQL for tasks, their event log, messages and artifacts (agent delegation's own tables only).
import type { Selectable } from 'kysely';
import type { A2aTaskArtifactsTable, A2aTaskEventsTable, A2aTaskMessagesTable, A2aTasksTable } from '../../core/db/a2a-tables.js';
import type { Db } from '../../core/db/handles.js';
import type { TaskEventKind, TaskFilter, TaskStatus } from '../contract.js';

export type TaskRow = Selectable<A2aTasksTable>;
export type TaskEventRow = Selectable<A2aTaskEventsTable>;
export type MessageRow = Selectable<A2aTaskMessagesTable>;
export type ArtifactRow = Selectable<A2aTaskArtifactsTable>;

export async function insertTask(db: Db, row: TaskRow): Promise<void> {
  await db.insertInto('a2a_tasks').values(row).execute();
}

export async function findTask(db: Db, accountId: string, taskId: string): Promise<TaskRow | undefined> {
  return db.selectFrom('a2a_tasks').selectAll().where('id', '=', taskId).where('account_id', '=', accountId).executeTakeFirst();
}

export async function taskOfRun(db: Db, runId: string): Promise<TaskRow | undefined> {
  return db.selectFrom('a2a_tasks').selectAll().where('run_id', '=', runId).executeTakeFirst();
}

export async function updateTask(db: Db, taskId: string, changes: Partial<TaskRow>): Promise<void> {
  await db.updateTable('a2a_tasks').set(changes).where('id', '=', taskId).execute();
}

export async function listTasks(db: Db, accountId: string, filter: TaskFilter): Promise<{ rows: TaskRow[]; total: number }> {
  let query = db.selectFrom('a2a_tasks').where('account_id', '=', accountId);
  if (filter.status) query = query.where('status', '=', filter.status);
  if (filter.agent_id) query = query.where('agent_id', '=', filter.agent_id);
  if (filter.context_id) query = query.where('context_id', '=', filter.context_id);
  const [rows, count] = await Promise.all([
    query.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit).offset(filter.offset).execute(),
    query.select((eb) => eb.fn.countAll<string | number>().as('total')).executeTakeFirstOrThrow(),
  ]);
  return { rows, total: Number(count.total) };
}

/** The account's tasks of `agentId` that have not ended, with what they cost so far. */
export async function unfinishedCost(db: Db, accountId: string, agentId: string): Promise<number> {
  const row = await db
    .selectFrom('a2a_tasks')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('cost_usd'), eb.lit(0)).as('total'))
    .where('account_id', '=', accountId)
    .where('agent_id', '=', agentId)
    .where('status', 'not in', ['completed', 'failed', 'canceled'])
    .executeTakeFirstOrThrow();
  return Number(row.total);
}

/** Tasks not ended whose agent limits their cost (what the budget sweeper checks). */
export async function budgetedUnfinished(db: Db): Promise<TaskRow[]> {
  return db.selectFrom('a2a_tasks').selectAll().where('status', 'not in', ['completed', 'failed', 'canceled']).where('max_cost_usd', 'is not', null).execute();
}

/**
 * Appends one event to the task's log: the counter is bumped first, so the row lock it takes (PostgreSQL)
 * orders concurrent writers of one task and sequences have no gaps.
 */
export async function appendEvent(db: Db, taskId: string, kind: TaskEventKind, data: Record<string, unknown>, at: string): Promise<number> {
  const bumped = await db
    .updateTable('a2a_tasks')
    .set((eb) => ({ event_count: eb('event_count', '+', 1) }))
    .where('id', '=', taskId)
    .returning('event_count')
    .executeTakeFirstOrThrow();
  await db
    .insertInto('a2a_task_events')
    .values({ task_id: taskId, sequence: bumped.event_count, kind, data: JSON.stringify(data), created_at: at })
    .execute();
  return bumped.event_count;
}

export async function eventsOf(db: Db, taskId: string, afterSequence: number, limit: number): Promise<TaskEventRow[]> {
  return db.selectFrom('a2a_task_events').selectAll().where('task_id', '=', taskId).where('sequence', '>', afterSequence).orderBy('sequence').limit(limit).execute();
}

export async function insertMessage(db: Db, row: MessageRow): Promise<void> {
  await db.insertInto('a2a_task_messages').values(row).execute();
}

export async function messagesOf(db: Db, taskId: string): Promise<MessageRow[]> {
  return db.selectFrom('a2a_task_messages').selectAll().where('task_id', '=', taskId).orderBy('created_at').orderBy('id').execute();
}

export async function artifactsOf(db: Db, taskIds: string[]): Promise<ArtifactRow[]> {
  if (taskIds.length === 0) return [];
  return db.selectFrom('a2a_task_artifacts').selectAll().where('task_id', 'in', taskIds).orderBy('created_at').orderBy('id').execute();
}

export async function insertArtifact(db: Db, row: ArtifactRow): Promise<void> {
  await db.insertInto('a2a_task_artifacts').values(row).execute();
}

export const UNFINISHED: readonly TaskStatus[] = ['pending', 'running', 'input_needed'];
