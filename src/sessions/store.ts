// SQL for sessions, their events and findings.
import { CompiledQuery, sql, type Insertable, type Updateable } from 'kysely';
import type { SqlDialect } from '../core/db/dialect.js';
import type { SessionFindingsTable, SessionsTable } from '../core/db/schema.js';
import type { EventType } from './ingest-validation.js';
import type { EventRow, SessionRow, SessionStatus } from './timeline.js';
import type { Db } from '../core/db/handles.js';
import { prepared } from '../core/db/prepared.js';

/** Creates the session unless the account already has one with this id. */
export async function ensureSession(db: Db, row: Insertable<SessionsTable>): Promise<void> {
  await db
    .insertInto('sessions')
    .values(row)
    .onConflict((oc) => oc.columns(['account_id', 'id']).doNothing())
    .execute();
}

/** Reads the session for appending. On PostgreSQL the row stays locked until the transaction ends, which
 * serializes concurrent appends to one session (SQLite transactions are serialized already). */
export function lockSession(db: Db, dialect: SqlDialect, accountId: string, id: string): Promise<SessionRow | undefined> {
  return dialect.forUpdate(db.selectFrom('sessions').selectAll().where('account_id', '=', accountId).where('id', '=', id)).executeTakeFirst();
}

/** Serializes the server's own session choice per sandbox (exec recording) on PostgreSQL. */
export async function lockSandboxSessions(db: Db, dialect: SqlDialect, sandboxId: string): Promise<void> {
  await dialect.lockKey(db, `sessions:${sandboxId}`);
}

export function findSession(db: Db, accountId: string, id: string): Promise<SessionRow | undefined> {
  return db.selectFrom('sessions').selectAll().where('account_id', '=', accountId).where('id', '=', id).executeTakeFirst();
}

/** The sandbox's most recently active session that has not ended, locked on PostgreSQL like lockSession. */
export function lockActiveSession(db: Db, dialect: SqlDialect, sandboxId: string): Promise<SessionRow | undefined> {
  return dialect.forUpdate(db.selectFrom('sessions').selectAll().where('sandbox_id', '=', sandboxId).where('status', '=', 'active').orderBy('last_activity_at', 'desc').limit(1)).executeTakeFirst();
}

/** The run's session, locked on PostgreSQL like lockSession. */
export function lockRunSession(db: Db, dialect: SqlDialect, runId: string): Promise<SessionRow | undefined> {
  return dialect.forUpdate(db.selectFrom('sessions').selectAll().where('pipeline_run_id', '=', runId)).executeTakeFirst();
}

/** A run's sessions: its own, and those of the sandboxes its stage attempts created (`runSandboxIds`). */
function runSessions(db: Db, runId: string, runSandboxIds: readonly string[]) {
  return db.selectFrom('sessions').where((eb) => (runSandboxIds.length ? eb.or([eb('pipeline_run_id', '=', runId), eb('sandbox_id', 'in', runSandboxIds)]) : eb('pipeline_run_id', '=', runId)));
}

export interface SessionFilter {
  /** The run's session and the sessions of the sandboxes its stages created. */
  pipelineRunId?: string;
  sandboxId?: string;
  status?: SessionStatus;
}

/** `runSandboxIds`: with `filter.pipelineRunId`, the sandboxes the run's stage attempts created. */
export function listSessionsOf(db: Db, accountId: string, filter: SessionFilter, page: { limit: number; offset: number }, runSandboxIds: readonly string[] = []) {
  let query = (filter.pipelineRunId !== undefined ? runSessions(db, filter.pipelineRunId, runSandboxIds) : db.selectFrom('sessions')).selectAll().where('account_id', '=', accountId);
  if (filter.sandboxId !== undefined) query = query.where('sandbox_id', '=', filter.sandboxId);
  if (filter.status !== undefined) query = query.where('status', '=', filter.status);
  return query.orderBy('created_at', 'desc').orderBy('key', 'desc').limit(page.limit).offset(page.offset).execute();
}

export function listSessions(db: Db, accountId: string, sandboxId: string, options: { limit: number; offset: number; status?: SessionStatus }) {
  let query = db.selectFrom('sessions').selectAll().where('sandbox_id', '=', sandboxId).where('account_id', '=', accountId);
  if (options.status) query = query.where('status', '=', options.status);
  return query.orderBy('created_at', 'desc').orderBy('key', 'desc').limit(options.limit).offset(options.offset).execute();
}

export async function updateSession(db: Db, key: string, changes: Updateable<SessionsTable>): Promise<void> {
  await db.updateTable('sessions').set(changes).where('key', '=', key).execute();
}

/** Which of `ids` (client-chosen event ids) the session already holds. */
export async function storedClientIds(db: Db, sessionKey: string, ids: string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < ids.length; i += 500) {
    const rows = await db
      .selectFrom('session_events')
      .select('id')
      .where('session_key', '=', sessionKey)
      .where('client_id', '=', 1)
      .where('id', 'in', ids.slice(i, i + 500))
      .execute();
    for (const row of rows) found.add(row.id);
  }
  return found;
}

const EVENT_COLUMNS = ['session_key', 'sequence', 'id', 'type', 'timestamp', 'data', 'meta', 'cost_usd', 'client_id'] as const;

function pushEventValues(into: unknown[], row: EventRow): void {
  into.push(row.session_key, row.sequence, row.id, row.type, row.timestamp, row.data, row.meta ?? null, row.cost_usd ?? null, row.client_id);
}

/** SQLite: multi-row inserts in chunks of 256, 128, … 1 rows, so a handful of statement texts cover any
 * batch and each is prepared once (the connection caches statements by text). */
function sqliteChunks(total: number): number[] {
  const sizes: number[] = [];
  let left = total;
  while (left >= 256) {
    sizes.push(256);
    left -= 256;
  }
  for (let size = 128; size >= 1; size /= 2) {
    if (left >= size) {
      sizes.push(size);
      left -= size;
    }
  }
  return sizes;
}

const sqliteInsertText = new Map<number, string>();
function sqliteInsert(rows: number): string {
  let text = sqliteInsertText.get(rows);
  if (!text) {
    const tuple = `(${EVENT_COLUMNS.map(() => '?').join(',')})`;
    text = `insert into session_events (${EVENT_COLUMNS.join(',')}) values ${Array.from({ length: rows }, () => tuple).join(',')}`;
    sqliteInsertText.set(rows, text);
  }
  return text;
}

/** PostgreSQL: one statement per batch whatever its size, the columns passed as arrays. */
const PG_INSERT = `insert into session_events (${EVENT_COLUMNS.join(',')})
  select * from unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::float8[], $9::int[])`;

export async function insertEvents(db: Db, dialect: SqlDialect, rows: EventRow[]): Promise<void> {
  if (!rows.length) return;
  if (dialect.bindsArrays) {
    const columns: unknown[][] = EVENT_COLUMNS.map(() => []);
    const values: unknown[] = [];
    for (const row of rows) {
      values.length = 0;
      pushEventValues(values, row);
      values.forEach((value, c) => columns[c].push(value));
    }
    await db.executeQuery(CompiledQuery.raw(PG_INSERT, columns));
    return;
  }
  let offset = 0;
  for (const size of sqliteChunks(rows.length)) {
    const parameters: unknown[] = [];
    for (let i = offset; i < offset + size; i++) pushEventValues(parameters, rows[i]);
    await db.executeQuery(CompiledQuery.raw(sqliteInsert(size), parameters));
    offset += size;
  }
}

export function ruleTally(db: Db, sessionKey: string) {
  return db
    .selectFrom('session_findings')
    .select((eb) => ['rule', eb.fn.countAll<number | string>().as('count'), eb.fn.sum<number | string>('penalty').as('penalty')])
    .where('session_key', '=', sessionKey)
    .groupBy('rule')
    .execute();
}

export async function insertFindings(db: Db, rows: Insertable<SessionFindingsTable>[]): Promise<void> {
  if (rows.length) await db.insertInto('session_findings').values(rows).execute();
}

export function listFindings(db: Db, sessionKey: string, limit: number) {
  return db.selectFrom('session_findings').selectAll().where('session_key', '=', sessionKey).orderBy('sequence').orderBy('rule').limit(limit).execute();
}

/**
 * A keyset page: events after `afterSeq` in sequence order, one more than asked to know if more follow.
 * Sequences have no gaps, so an unfiltered page is also bounded above: the range then stays a short
 * index range even when PostgreSQL's statistics are stale (fresh tables) and it would otherwise sort
 * every event of the session.
 */
export function replayPage(db: Db, sessionKey: string, afterSeq: number, limit: number, type?: EventType) {
  let query = db.selectFrom('session_events').selectAll().where('session_key', '=', sessionKey).where('sequence', '>', afterSeq);
  query = type ? query.where('type', '=', type) : query.where('sequence', '<=', afterSeq + limit + 1);
  return query
    .orderBy('sequence')
    .limit(limit + 1)
    .execute();
}

/** Ends active sessions that received nothing since `cutoff`; returns how many. */
export async function timeOutInactive(db: Db, cutoffIso: string, nowIso: string): Promise<number> {
  const result = await db
    .updateTable('sessions')
    .set((eb) => ({ status: 'timeout', ended_at: eb.fn.coalesce('last_event_at', 'last_activity_at'), updated_at: nowIso }))
    .where('status', '=', 'active')
    .where('last_activity_at', '<', cutoffIso)
    // A run's session lasts as long as its run (a paused run may wait for days); the run ends it.
    .where('sandbox_id', 'is not', null)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

export function sessionsAwaitingTrustAlerts(db: Db, limit: number) {
  return db.selectFrom('sessions').selectAll().where('trust_alert_pending', '=', 1).limit(limit).execute();
}

export function lockSessionByKey(db: Db, dialect: SqlDialect, key: string): Promise<SessionRow | undefined> {
  return dialect.forUpdate(db.selectFrom('sessions').selectAll().where('key', '=', key)).executeTakeFirst();
}

export async function markTrustAlertsChecked(db: Db, key: string, raised: number): Promise<void> {
  await db.updateTable('sessions').set({ trust_alerts_raised: raised, trust_alert_pending: 0 }).where('key', '=', key).execute();
}

/** Sum of the LLM cost of each sandbox's sessions. */
export async function llmCostBySandbox(db: Db, sandboxIds: readonly string[]): Promise<Map<string, number>> {
  const result = new Map<string, number>();
  if (!sandboxIds.length) return result;
  const rows = await db
    .selectFrom('sessions')
    .select((eb) => ['sandbox_id', eb.fn.sum<number | string>('llm_cost_usd').as('llm')])
    .where('sandbox_id', 'in', sandboxIds)
    .groupBy('sandbox_id')
    .execute();
  for (const row of rows) result.set(row.sandbox_id!, Number(row.llm ?? 0));
  return result;
}

/** LLM cost of the account's sessions per UTC day of their creation on this server, for sessions created in [fromIso, toIso). */
export async function llmCostPerDay(db: Db, accountId: string, fromIso: string, toIso: string): Promise<Map<string, number>> {
  const rows = await llmCostPerDayQuery(db, accountId, fromIso, toIso);
  return new Map(rows.map((row) => [row.day, Number(row.llm ?? 0)]));
}

const llmCostPerDayQuery = prepared((db, accountId, fromIso, toIso) => {
  const day = sql<string>`substr(created_at, 1, 10)`;
  return db
    .selectFrom('sessions')
    .select((eb) => [day.as('day'), eb.fn.sum<number | string>('llm_cost_usd').as('llm')])
    .where('account_id', '=', accountId)
    .where('created_at', '>=', fromIso)
    .where('created_at', '<', toIso)
    .groupBy(day);
});

/** LLM cost, lowest trust score and number of a run's sessions (see runSessions). */
export async function runTotals(db: Db, runId: string, runSandboxIds: readonly string[]) {
  const row = await runSessions(db, runId, runSandboxIds)
    .select((eb) => [eb.fn.coalesce(eb.fn.sum<number | string>('llm_cost_usd'), eb.lit(0)).as('llm'), eb.fn.min<number>('trust_score').as('lowest'), eb.fn.countAll<number | string>().as('count')])
    .executeTakeFirstOrThrow();
  return { llmCostUsd: Number(row.llm), lowestTrustScore: row.lowest === null ? null : Number(row.lowest), sessions: Number(row.count) };
}
