// The durable outbox: features enqueue a delivery (an email, a webhook call) in the same transaction as
// the change it reports, and a worker in every process delivers due rows through the handler registered
// for their kind, retrying with backoff until delivered or out of attempts. Rows and their attempts are
// the record users see. A target can be a credential (a chat webhook URL is one), so it is stored sealed,
// bound to its row, and opened only here and in the worker.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../db/dialect.js';
import type { Database } from '../db/schema.js';
import { newId } from '../ids.js';
import { sealPlainValues } from '../sealed-columns.js';
import type { TextSealer } from '../sealed-text.js';
import { nowIso } from '../time.js';
import * as store from './store.js';
import type { DeliveryHandler, OutboxSettings } from './delivery.js';
import { OutboxWorker } from './worker.js';
import type { Logger } from '../logging.js';

export { DeliveryFailed, type Delivery, type DeliveryHandler, type DeliveryResult, type OutboxSettings } from './delivery.js';

export interface NewDelivery {
  kind: string;
  accountId: string | null;
  sourceId: string | null;
  target: string;
  payload: unknown;
}

export class Outbox {
  private readonly handlers = new Map<string, DeliveryHandler>();
  private readonly worker: OutboxWorker;

  constructor(
    private readonly db: Kysely<Database>,
    dialect: SqlDialect,
    private readonly settings: OutboxSettings,
    log: Logger,
    private readonly targets: TextSealer,
  ) {
    this.worker = new OutboxWorker(db, dialect, settings, this.handlers, log, (row) => this.targets.open(row.target, row.id));
  }

  /** Seals the targets stored in plain text before sealing existed; run at start-up, safe on every node at once. */
  async sealStoredTargets(): Promise<void> {
    await sealPlainValues(this.db, { table: 'outbox', key: 'id', column: 'target', seal: (value, id) => this.targets.seal(value, id) });
  }

  private opened(row: store.DeliveryRow): store.DeliveryRow {
    return { ...row, target: this.targets.open(row.target, row.id) };
  }

  /** The handler that delivers rows of `kind` in this process. */
  handle(kind: string, handler: DeliveryHandler): void {
    this.handlers.set(kind, handler);
  }

  /** Adds a delivery, due now; pass the caller's transaction so it commits with the change it reports. */
  async enqueue(db: Kysely<Database>, delivery: NewDelivery): Promise<string> {
    const now = nowIso();
    const id = newId('dlv');
    await store.insertDelivery(db, {
      id,
      kind: delivery.kind,
      account_id: delivery.accountId,
      source_id: delivery.sourceId,
      target: this.targets.seal(delivery.target, id),
      payload: JSON.stringify(delivery.payload),
      status: 'pending',
      attempts: 0,
      max_attempts: this.settings.maxAttempts,
      next_attempt_at: now,
      lease_expires_at: null,
      leased_by: null,
      last_error: null,
      created_at: now,
      updated_at: now,
      delivered_at: null,
    });
    return id;
  }

  start(): void {
    this.worker.start();
  }

  /** Asks the worker to look for due rows now (after a commit that enqueued some). */
  wake(): void {
    this.worker.wake();
  }

  /** Stops claiming; resolves when the attempts in flight have finished. */
  stop(): Promise<void> {
    return this.worker.stop();
  }

  async list(filter: store.DeliveryFilter) {
    return (await store.listDeliveries(this.db, filter)).map((row) => this.opened(row));
  }

  async find(accountId: string, id: string) {
    const row = await store.findDelivery(this.db, accountId, id);
    return row && this.opened(row);
  }

  async forSources(sourceIds: string[]) {
    return (await store.deliveriesForSources(this.db, sourceIds)).map((row) => this.opened(row));
  }

  attempts(deliveryIds: string[]) {
    return store.attemptsOf(this.db, deliveryIds);
  }

  /** Deliveries kept, by kind and status, across every server (metrics: backlog and failures). */
  counts() {
    return store.countByKindAndStatus(this.db);
  }

  /** Failed attempts of the deliveries kept, by kind (metrics). */
  failedAttemptCounts() {
    return store.failedAttemptsByKind(this.db);
  }
}
