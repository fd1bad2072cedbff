// SQL for eval scenarios, suites and results.
import type { Selectable, Updateable } from 'kysely';
import type { EvalResultsTable, EvalScenariosTable, EvalSuitesTable } from '../core/db/schema.js';
import type { Db } from '../core/db/handles.js';

export type ScenarioRow = Selectable<EvalScenariosTable>;
export type SuiteRow = Selectable<EvalSuitesTable>;
export type ResultRow = Selectable<EvalResultsTable>;

export async function insertScenario(db: Db, row: ScenarioRow): Promise<void> {
  await db.insertInto('eval_scenarios').values(row).execute();
}

export async function updateScenario(db: Db, id: string, changes: Updateable<EvalScenariosTable>): Promise<void> {
  await db.updateTable('eval_scenarios').set(changes).where('id', '=', id).execute();
}

export function findScenario(db: Db, accountId: string, id: string) {
  return db.selectFrom('eval_scenarios').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export function findScenarioByName(db: Db, accountId: string, name: string) {
  return db.selectFrom('eval_scenarios').selectAll().where('account_id', '=', accountId).where('name', '=', name).executeTakeFirst();
}

export function findScenarios(db: Db, accountId: string, ids: string[]) {
  if (!ids.length) return Promise.resolve([]);
  return db.selectFrom('eval_scenarios').selectAll().where('account_id', '=', accountId).where('id', 'in', ids).execute();
}

export function listScenarios(db: Db, accountId: string, page: { limit: number; offset: number }) {
  return db.selectFrom('eval_scenarios').selectAll().where('account_id', '=', accountId).orderBy('id', 'asc').limit(page.limit).offset(page.offset).execute();
}

export async function deleteScenario(db: Db, id: string): Promise<void> {
  await db.deleteFrom('eval_scenarios').where('id', '=', id).execute();
}

export async function insertSuite(db: Db, row: SuiteRow): Promise<void> {
  await db.insertInto('eval_suites').values(row).execute();
}

export async function updateSuite(db: Db, id: string, changes: Updateable<EvalSuitesTable>): Promise<void> {
  await db.updateTable('eval_suites').set(changes).where('id', '=', id).execute();
}

export function findSuite(db: Db, accountId: string, id: string) {
  return db.selectFrom('eval_suites').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

export function findSuiteByName(db: Db, accountId: string, name: string) {
  return db.selectFrom('eval_suites').selectAll().where('account_id', '=', accountId).where('name', '=', name).executeTakeFirst();
}

export function listSuites(db: Db, accountId: string, page?: { limit: number; offset: number }) {
  const query = db.selectFrom('eval_suites').selectAll().where('account_id', '=', accountId).orderBy('id', 'asc');
  return (page ? query.limit(page.limit).offset(page.offset) : query).execute();
}

export async function deleteSuite(db: Db, id: string): Promise<void> {
  await db.deleteFrom('eval_suites').where('id', '=', id).execute();
}

export async function insertResult(db: Db, row: ResultRow): Promise<void> {
  await db.insertInto('eval_results').values(row).execute();
}

export type ResultSubject = { scenarioId: string } | { suiteId: string };

function ofSubject(db: Db, accountId: string, subject: ResultSubject) {
  const query = db.selectFrom('eval_results').where('account_id', '=', accountId);
  return 'scenarioId' in subject ? query.where('scenario_id', '=', subject.scenarioId) : query.where('suite_id', '=', subject.suiteId);
}

export function listResults(db: Db, accountId: string, subject: ResultSubject, page: { limit: number; offset: number }) {
  return ofSubject(db, accountId, subject).selectAll().orderBy('id', 'desc').limit(page.limit).offset(page.offset).execute();
}

/** Scores of the newest `count` completed (not errored) results: the baseline of the next run. */
export async function recentScores(db: Db, accountId: string, subject: ResultSubject, count: number): Promise<number[]> {
  const rows = await ofSubject(db, accountId, subject).select('score').where('status', '!=', 'errored').orderBy('id', 'desc').limit(count).execute();
  return rows.map((row) => Number(row.score));
}

export async function holdSandbox(db: Db, row: { sandbox_id: string; account_id: string; created_at: string }): Promise<void> {
  await db.insertInto('eval_sandboxes').values(row).execute();
}

export async function releaseSandbox(db: Db, sandboxId: string): Promise<void> {
  await db.deleteFrom('eval_sandboxes').where('sandbox_id', '=', sandboxId).execute();
}

/** Eval sandboxes held by runs of any server. */
export function heldSandboxes(db: Db) {
  return db.selectFrom('eval_sandboxes').selectAll().execute();
}
