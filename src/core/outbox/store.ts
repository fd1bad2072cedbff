// SQL for the outbox: enqueue, claim due rows under a lease, record each attempt, finish.
export { DELIVERY_STATUSES, type DeliveryStatus } from '../db/column-values.js';
import type { DeliveryStatus } from '../db/column-values.js';
import type { Kysely, Selectable } from 'kysely';
import type { SqlDialect } from '../db/dialect.js';
import type { Database, OutboxAttemptsTable, OutboxTable } from '../db/schema.js';

export type DeliveryRow = Selectable<OutboxTable>;
export type AttemptRow = Selectable<OutboxAttemptsTable>;

export function insertDelivery(db: Kysely<Database>, row: DeliveryRow) {
  return db.insertInto('outbox').values(row).execute();
}

export interface ClaimRequest {
  kinds: string[];
  workerId: string;
  now: string;
  leaseExpiresAt: string;
  limit: number;
}

/**
 * Leases up to `limit` due rows (pending and due, or delivering with an expired lease) to `workerId`
 * and counts the attempt. On PostgreSQL rows locked by another worker's claim are skipped, so two
 * workers never take the same row; SQLite runs one writer at a time.
 */
export async function claimDue(db: Kysely<Database>, dialect: SqlDialect, request: ClaimRequest): Promise<DeliveryRow[]> {
  if (!request.kinds.length) return [];
  return db
    .updateTable('outbox')
    .set((eb) => ({
      status: 'delivering',
      attempts: eb('attempts', '+', 1),
      lease_expires_at: request.leaseExpiresAt,
      leased_by: request.workerId,
      updated_at: request.now,
    }))
    .where('id', 'in', (eb) =>
      eb
        .selectFrom('outbox')
        .select('id')
        .where('kind', 'in', request.kinds)
        .where((w) => w.or([w.and([w('status', '=', 'pending'), w('next_attempt_at', '<=', request.now)]), w.and([w('status', '=', 'delivering'), w('lease_expires_at', '<=', request.now)])]))
        .orderBy('next_attempt_at')
        .limit(request.limit)
        .$call((q) => dialect.forUpdateSkipLocked(q)),
    )
    .returningAll()
    .execute();
}

/** Attempts left unfinished by a worker whose lease expired are marked abandoned. */
export function abandonUnfinishedAttempts(db: Kysely<Database>, deliveryIds: string[], now: string) {
  return db
    .updateTable('outbox_attempts')
    .set({ outcome: 'abandoned', finished_at: now, error: 'the worker stopped before the attempt finished; its lease expired' })
    .where('delivery_id', 'in', deliveryIds)
    .where('finished_at', 'is', null)
    .execute();
}

export function insertAttempt(db: Kysely<Database>, row: AttemptRow) {
  return db.insertInto('outbox_attempts').values(row).execute();
}

export interface AttemptOutcome {
  outcome: 'delivered' | 'failed';
  finishedAt: string;
  statusCode: number | null;
  error: string | null;
  responseExcerpt: string | null;
  durationMs: number;
}

export function finishAttempt(db: Kysely<Database>, deliveryId: string, attempt: number, result: AttemptOutcome) {
  return db
    .updateTable('outbox_attempts')
    .set({
      outcome: result.outcome,
      finished_at: result.finishedAt,
      status_code: result.statusCode,
      error: result.error,
      response_excerpt: result.responseExcerpt,
      duration_ms: result.durationMs,
    })
    .where('delivery_id', '=', deliveryId)
    .where('attempt', '=', attempt)
    .execute();
}

export interface DeliveryUpdate {
  status: DeliveryStatus;
  nextAttemptAt?: string;
  lastError: string | null;
  deliveredAt?: string;
  now: string;
}

/** Applies the result of attempt `attempt` if this worker still holds the lease for it; false otherwise. */
export async function finishDelivery(db: Kysely<Database>, id: string, workerId: string, attempt: number, update: DeliveryUpdate): Promise<boolean> {
  const result = await db
    .updateTable('outbox')
    .set({
      status: update.status,
      ...(update.nextAttemptAt ? { next_attempt_at: update.nextAttemptAt } : {}),
      ...(update.deliveredAt ? { delivered_at: update.deliveredAt } : {}),
      last_error: update.lastError,
      lease_expires_at: null,
      leased_by: null,
      updated_at: update.now,
    })
    .where('id', '=', id)
    .where('leased_by', '=', workerId)
    .where('attempts', '=', attempt)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

export interface DeliveryFilter {
  accountId: string;
  kindPrefix: string;
  sourceId?: string;
  kind?: string;
  status?: DeliveryStatus;
  limit: number;
  offset: number;
}

export function listDeliveries(db: Kysely<Database>, filter: DeliveryFilter) {
  return db
    .selectFrom('outbox')
    .selectAll()
    .where('account_id', '=', filter.accountId)
    .where('kind', 'like', `${filter.kindPrefix}%`)
    .$if(filter.sourceId !== undefined, (q) => q.where('source_id', '=', filter.sourceId!))
    .$if(filter.kind !== undefined, (q) => q.where('kind', '=', filter.kind!))
    .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status!))
    .orderBy('id', 'desc')
    .limit(filter.limit)
    .offset(filter.offset)
    .execute();
}

export function findDelivery(db: Kysely<Database>, accountId: string, id: string) {
  return db.selectFrom('outbox').selectAll().where('id', '=', id).where('account_id', '=', accountId).executeTakeFirst();
}

export function deliveriesForSources(db: Kysely<Database>, sourceIds: string[]) {
  if (!sourceIds.length) return Promise.resolve([] as DeliveryRow[]);
  return db.selectFrom('outbox').selectAll().where('source_id', 'in', sourceIds).orderBy('id').execute();
}

export function attemptsOf(db: Kysely<Database>, deliveryIds: string[]) {
  if (!deliveryIds.length) return Promise.resolve([] as AttemptRow[]);
  return db.selectFrom('outbox_attempts').selectAll().where('delivery_id', 'in', deliveryIds).orderBy('delivery_id').orderBy('attempt').execute();
}

/** Deliveries kept, by kind and status (outbox_due_idx leads with status). */
export async function countByKindAndStatus(db: Kysely<Database>): Promise<{ kind: string; status: string; count: number }[]> {
  const rows = await db
    .selectFrom('outbox')
    .select((eb) => ['kind', 'status', eb.fn.countAll<string | number>().as('count')])
    .groupBy(['kind', 'status'])
    .execute();
  return rows.map((row) => ({ kind: row.kind, status: row.status, count: Number(row.count) }));
}

/** Failed attempts of the deliveries kept, by the delivery's kind. */
export async function failedAttemptsByKind(db: Kysely<Database>): Promise<{ kind: string; count: number }[]> {
  const rows = await db
    .selectFrom('outbox_attempts as a')
    .innerJoin('outbox as o', 'o.id', 'a.delivery_id')
    .select((eb) => ['o.kind as kind', eb.fn.countAll<string | number>().as('count')])
    .where('a.outcome', '=', 'failed')
    .groupBy('o.kind')
    .execute();
  return rows.map((row) => ({ kind: row.kind, count: Number(row.count) }));
}

/**
 * Deletes up to `limit` finished (delivered or failed) rows last changed before `before`, with their
 * attempts; the number deleted. Pending and leased rows are never touched.
 */
export async function pruneFinished(db: Kysely<Database>, before: string, limit: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const ids = (await trx.selectFrom('outbox').select('id').where('status', 'in', ['delivered', 'failed']).where('updated_at', '<', before).limit(limit).execute()).map((row) => row.id);
    if (!ids.length) return 0;
    await trx.deleteFrom('outbox_attempts').where('delivery_id', 'in', ids).execute();
    await trx.deleteFrom('outbox').where('id', 'in', ids).execute();
    return ids.length;
  });
}
