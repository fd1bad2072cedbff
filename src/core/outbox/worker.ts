// Delivers due outbox rows: claims a batch under a lease, runs each row's handler with a timeout,
// records the attempt, and schedules a retry with backoff or gives up. Polls, and wakes early when told
// something was enqueued. A crashed worker's rows come back when their lease expires.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../db/dialect.js';
import type { Database } from '../db/schema.js';
import { newId } from '../ids.js';
import { retryDelayMs } from './backoff.js';
import { DeliveryFailed, type DeliveryHandler, type OutboxSettings } from './delivery.js';
import * as store from './store.js';
import { PeriodicTask } from '../periodic-task.js';
import type { Logger } from '../logging.js';

const BATCH_SIZE = 10;
const ERROR_CHARS = 1000;
const PRUNE_EVERY_MS = 60 * 60 * 1000;
const PRUNE_BATCH = 500;

interface AttemptResult {
  ok: boolean;
  permanent: boolean;
  statusCode: number | null;
  error: string | null;
  responseExcerpt: string | null;
}

export class OutboxWorker {
  readonly id = newId('wkr');
  private readonly task: PeriodicTask;
  private lastPruneAt = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialect,
    private readonly settings: OutboxSettings,
    private readonly handlers: ReadonlyMap<string, DeliveryHandler>,
    private readonly log: Logger,
    /** The row's target as its handler sees it: opened (it is stored sealed). */
    private readonly targetOf: (row: store.DeliveryRow) => string,
  ) {
    this.task = new PeriodicTask('outbox worker pass', settings.pollIntervalMs, () => this.drain(), log);
  }

  /** Longer than any attempt can take, so a live worker never loses a row it is still delivering. */
  private get leaseMs(): number {
    return this.settings.attemptTimeoutMs * 2 + 30_000;
  }

  start(): void {
    this.task.start();
  }

  wake(): void {
    this.task.wake();
  }

  async stop(): Promise<void> {
    await this.task.stop();
  }

  private async drain(): Promise<void> {
    while (this.task.active) {
      const batch = await this.claim();
      await Promise.all(batch.map((row) => this.deliver(row)));
      if (batch.length < BATCH_SIZE) break;
    }
    await this.pruneWhenDue();
  }

  /** On the first pass and then hourly: finished rows past the retention go, a batch at a time. */
  private async pruneWhenDue(): Promise<void> {
    const now = Date.now();
    if (!this.settings.retentionDays || now - this.lastPruneAt < PRUNE_EVERY_MS) return;
    this.lastPruneAt = now;
    const before = new Date(now - this.settings.retentionDays * 86_400_000).toISOString();
    while (this.task.active && (await store.pruneFinished(this.db, before, PRUNE_BATCH)) === PRUNE_BATCH);
  }

  private async claim(): Promise<store.DeliveryRow[]> {
    const now = new Date();
    const nowText = now.toISOString();
    return this.db.transaction().execute(async (trx) => {
      const rows = await store.claimDue(trx, this.dialect, {
        kinds: [...this.handlers.keys()],
        workerId: this.id,
        now: nowText,
        leaseExpiresAt: new Date(now.getTime() + this.leaseMs).toISOString(),
        limit: BATCH_SIZE,
      });
      if (!rows.length) return rows;
      await store.abandonUnfinishedAttempts(
        trx,
        rows.map((row) => row.id),
        nowText,
      );
      for (const row of rows) {
        await store.insertAttempt(trx, {
          delivery_id: row.id,
          attempt: row.attempts,
          worker_id: this.id,
          started_at: nowText,
          finished_at: null,
          outcome: null,
          status_code: null,
          error: null,
          response_excerpt: null,
          duration_ms: null,
        });
      }
      return rows;
    });
  }

  private async deliver(row: store.DeliveryRow): Promise<void> {
    const started = Date.now();
    const result = row.attempts > row.max_attempts ? gaveUp(row) : await this.attempt(row);
    const finished = new Date();
    const finishedAt = finished.toISOString();
    const error = result.error ? result.error.slice(0, ERROR_CHARS) : null;
    const giveUp = !result.ok && (result.permanent || row.attempts >= row.max_attempts);
    const update: store.DeliveryUpdate = result.ok
      ? { status: 'delivered', lastError: null, deliveredAt: finishedAt, now: finishedAt }
      : giveUp
        ? { status: 'failed', lastError: error, now: finishedAt }
        : {
            status: 'pending',
            lastError: error,
            nextAttemptAt: new Date(finished.getTime() + retryDelayMs(row.attempts, this.settings.backoffBaseMs)).toISOString(),
            now: finishedAt,
          };
    try {
      await this.db.transaction().execute(async (trx) => {
        await store.finishAttempt(trx, row.id, row.attempts, {
          outcome: result.ok ? 'delivered' : 'failed',
          finishedAt,
          statusCode: result.statusCode,
          error,
          responseExcerpt: result.responseExcerpt,
          durationMs: finished.getTime() - started,
        });
        if (!(await store.finishDelivery(trx, row.id, this.id, row.attempts, update))) {
          this.log.warn({ delivery_id: row.id }, 'outbox lease was lost before the attempt finished');
        }
      });
    } catch (err) {
      // The row keeps its lease and is tried again when it expires.
      this.log.error({ err, delivery_id: row.id }, 'could not record an outbox attempt');
    }
  }

  private async attempt(row: store.DeliveryRow): Promise<AttemptResult> {
    const handler = this.handlers.get(row.kind);
    if (!handler) return { ok: false, permanent: true, statusCode: null, error: `no handler for ${row.kind}`, responseExcerpt: null };
    const timeoutMs = this.settings.attemptTimeoutMs;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new DeliveryFailed(`no answer within ${timeoutMs} ms`)), timeoutMs + 1000);
    });
    try {
      const delivered = await Promise.race([
        handler({
          id: row.id,
          kind: row.kind,
          accountId: row.account_id,
          sourceId: row.source_id,
          target: this.targetOf(row),
          payload: JSON.parse(row.payload),
          attempt: row.attempts,
          timeoutMs,
        }),
        timeout,
      ]);
      return { ok: true, permanent: false, statusCode: delivered.statusCode ?? null, error: null, responseExcerpt: delivered.responseExcerpt ?? null };
    } catch (error) {
      if (error instanceof DeliveryFailed) {
        return {
          ok: false,
          permanent: error.options.permanent ?? false,
          statusCode: error.options.statusCode ?? null,
          error: error.message,
          responseExcerpt: error.options.responseExcerpt ?? null,
        };
      }
      return { ok: false, permanent: false, statusCode: null, error: (error as Error).message || String(error), responseExcerpt: null };
    } finally {
      clearTimeout(timer);
    }
  }
}

/** A row whose last allowed attempt was abandoned by a crashed worker: nothing left to try. */
function gaveUp(row: store.DeliveryRow): AttemptResult {
  return { ok: false, permanent: true, statusCode: null, error: `gave up: all ${row.max_attempts} attempts were used`, responseExcerpt: null };
}
