// The one writer of sandbox status. `transition` checks the edge table, then writes the status, the
// event row, the edge's effects (metering, alerts, completion callbacks) and the published event in one
// transaction; after the commit, in-process consumers hear of the event (their failures are logged).
import type { Tx } from '../../core/db/handles.js';
import type { Kysely, Updateable } from 'kysely';
import type { Database, SandboxesTable } from '../../core/db/schema.js';
import { NotFound } from '../../core/errors.js';
import type { EventPublisher } from '../../core/events/published.js';
import { newId } from '../../core/ids.js';
import { nowIso } from '../../core/time.js';
import { startMetering } from '../../billing/metering/service.js';
import type { Logger } from '../../core/logging.js';
import * as sandboxStore from '../store.js';
import type { ExecFinished, LifecycleConsumer, SandboxEvent, SandboxStatus } from './contract.js';
import { EDGES, LifecycleConflict, requireEdge, type EdgeEventType } from './edges.js';
import { applyEdgeEffects, type EdgeEffectDeps } from './effects.js';
import * as store from './store.js';

export interface EdgeRequest {
  type: EdgeEventType;
  /** The target status, when the edge has more than one (sandbox.created: running or creating). */
  to?: SandboxStatus;
  /** Columns written with the status (error, paused_at, destroyed_reason, ip…); a function gets the edge's time. */
  changes?: Updateable<SandboxesTable> | ((at: string) => Updateable<SandboxesTable>);
  /** The event's details (reason, warm, duration_ms, snapshot_id…). */
  data?: Record<string, unknown>;
  /** When the change was decided (a destroy's metering closes here, not after the teardown); now by default. */
  decidedAt?: string;
  /**
   * The statuses the caller's check saw (a monitor's crash check, a set-up step): a sandbox found in
   * another one is left alone and null answered, instead of a 409.
   */
  onlyFrom?: readonly SandboxStatus[];
}

export interface Committed {
  row: sandboxStore.SandboxRow;
  event: SandboxEvent;
}

export interface LifecycleDeps extends EdgeEffectDeps {
  db: Kysely<Database>;
  publisher: EventPublisher;
  log: Logger;
  /** Delivers what a committed transaction queued in the outbox (callbacks, webhooks) now. */
  wakeOutbox(): void;
}

export class SandboxLifecycle {
  private readonly consumers: LifecycleConsumer[] = [];

  constructor(private readonly deps: LifecycleDeps) {}

  /** Registers an in-process consumer (while the app is built, before it is ready). */
  subscribe(consumer: LifecycleConsumer): void {
    this.consumers.push(consumer);
  }

  /** Moves the sandbox along the edge `request.type` names; a 409 when its status does not allow it. */
  async transition(sandboxId: string, request: EdgeRequest & { onlyFrom?: undefined }): Promise<Committed>;
  async transition(sandboxId: string, request: EdgeRequest): Promise<Committed | null>;
  async transition(sandboxId: string, request: EdgeRequest): Promise<Committed | null> {
    const committed = await this.deps.db.transaction().execute(async (trx) => {
      const row = await sandboxStore.findSandboxById(trx, sandboxId);
      if (!row) throw new NotFound('sandbox');
      const from = row.status;
      if (request.onlyFrom && !request.onlyFrom.includes(from)) return null;
      const to = requireEdge(request.type, from, request.to);
      const at = nowIso();
      const changes = { ...(typeof request.changes === 'function' ? request.changes(at) : request.changes), status: to, updated_at: at };
      // Another transaction moved it since the read above (PostgreSQL): refused, never overwritten.
      if (!(await sandboxStore.transitionSandbox(trx, sandboxId, [from], changes))) {
        throw new LifecycleConflict(`sandbox changed state (it was ${from}) while being moved by ${request.type}; try again`, 'sandbox_state_conflict', from);
      }
      const after = { ...row, ...changes } as sandboxStore.SandboxRow;
      const data = request.data ?? {};
      await applyEdgeEffects(trx, this.deps, { type: request.type, before: row, after, data, at, decidedAt: request.decidedAt ?? at });
      const event = await this.record(trx, { type: request.type, sandboxId, accountId: row.account_id, at, from, to, data });
      return { row: after, event };
    });
    if (committed) await this.deliver(committed.event);
    return committed;
  }

  /** Like `transition`, for callers racing other changes (monitors): a refused edge answers null. */
  async transitionIfAllowed(sandboxId: string, request: EdgeRequest): Promise<Committed | null> {
    try {
      return await this.transition(sandboxId, request);
    } catch (error) {
      if (error instanceof LifecycleConflict || error instanceof NotFound) return null;
      throw error;
    }
  }

  /**
   * A budget threshold crossed (no status change): `effects` (the alert) and the mark that it was
   * raised commit with the event, so a restart neither loses nor repeats it.
   */
  async budgetThresholdCrossed(row: sandboxStore.SandboxRow, crossing: { bit: number; data: Record<string, unknown> }, effects: (trx: Tx) => Promise<void>): Promise<SandboxEvent> {
    const event = await this.deps.db.transaction().execute(async (trx) => {
      await sandboxStore.markBudgetAlertsRaised(trx, row.id, crossing.bit);
      await effects(trx);
      return this.record(trx, { type: 'sandbox.budget_threshold', sandboxId: row.id, accountId: row.account_id, at: nowIso(), from: null, to: null, data: crossing.data });
    });
    await this.deliver(event);
    return event;
  }

  /** Consumers hear of a finished exec (sessions record it); their failures are logged. */
  async execFinished(exec: ExecFinished): Promise<void> {
    for (const consumer of this.consumers) {
      if (!consumer.onExec) continue;
      try {
        await consumer.onExec(exec);
      } catch (error) {
        this.deps.log.error({ err: error, sandbox_id: exec.sandboxId, consumer: consumer.name }, 'a lifecycle consumer failed on an exec');
      }
    }
  }

  /** Whether any consumer records execs (masking the output for them costs a secrets read). */
  get recordsExecs(): boolean {
    return this.consumers.some((consumer) => consumer.onExec);
  }

  /** Before a destroy kills the sandbox's processes. */
  beforeTeardown(sandbox: { id: string; accountId: string }): void {
    for (const consumer of this.consumers) {
      try {
        consumer.beforeTeardown?.(sandbox);
      } catch (error) {
        this.deps.log.error({ err: error, sandbox_id: sandbox.id, consumer: consumer.name }, 'a lifecycle consumer failed before a teardown');
      }
    }
  }

  /** Re-checks `type`'s edge from `from` before runtime work (a pause freezes processes only if it may). */
  requireEdge(type: EdgeEventType, from: SandboxStatus): void {
    requireEdge(type, from);
  }

  /**
   * After a restart, running sandboxes are metered (opens an interval only where none is open: a server
   * stopped between two transactions of an older version could leave one closed).
   */
  async keepMetering(rows: readonly sandboxStore.SandboxRow[]): Promise<void> {
    const at = nowIso();
    for (const row of rows) await startMetering(this.deps.db, row, at);
  }

  async events(sandboxId: string, page: { limit: number; offset: number }): Promise<SandboxEvent[]> {
    return store.listEvents(this.deps.db, sandboxId, page);
  }

  private async record(trx: Tx, fields: Omit<SandboxEvent, 'id'>): Promise<SandboxEvent> {
    const event: SandboxEvent = { id: newId('evt'), ...fields };
    await store.appendEvent(trx, event);
    await this.deps.publisher.publish(trx, {
      id: event.id,
      type: event.type,
      accountId: event.accountId,
      occurredAt: event.at,
      data: { sandbox_id: event.sandboxId, from: event.from, to: event.to, ...event.data },
    });
    return event;
  }

  private async deliver(event: SandboxEvent): Promise<void> {
    this.deps.wakeOutbox();
    for (const consumer of this.consumers) {
      if (!consumer.onEvent) continue;
      try {
        await consumer.onEvent(event);
      } catch (error) {
        this.deps.log.error({ err: error, sandbox_id: event.sandboxId, event: event.type, consumer: consumer.name }, 'a lifecycle consumer failed');
      }
    }
  }
}

export { EDGES };

/** Admits a new sandbox in `creating` (no event yet: `sandbox.created` records it once the runtime has it up). */
export async function admitSandbox(trx: Tx, row: sandboxStore.SandboxRow & { status: 'creating' }): Promise<void> {
  await sandboxStore.insertSandbox(trx, row);
}
