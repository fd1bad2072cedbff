// What happens when a sandbox ends, inside the transaction that records it: the `budget_exceeded` alert
// and `on_budget_exceeded` callback for a budget destroy, and the one `on_complete` callback of its life.
import type { AlertRaiser } from '../alerts/contract.js';
import type { SpendCalculator } from '../billing/metering/spend.js';
import type { Outbox } from '../core/outbox/outbox.js';
import { queueCallback } from './callbacks/delivery.js';
import { budgetExceededEvent, completedEvent, usd, type EndReason } from './callbacks/events.js';
import * as store from './store.js';
import type { Tx } from '../core/db/handles.js';

export class SandboxEndings {
  constructor(
    private readonly alerts: AlertRaiser,
    private readonly spend: SpendCalculator,
    private readonly outbox: Outbox,
  ) {}

  /**
   * Marks the sandbox ended and queues its `on_complete` callback, once in its life: whichever of
   * DELETE, the budget or the error state comes first claims it.
   */
  async complete(trx: Tx, id: string, reason: EndReason, endedAt: string): Promise<void> {
    const row = await store.claimCompletion(trx, id, endedAt);
    if (!row?.on_complete) return;
    const spend = await this.spend.ofOne(id, { db: trx, nowMs: Date.parse(endedAt) });
    await queueCallback(this.outbox, trx, { accountId: row.account_id, sandboxId: id, url: row.on_complete, event: completedEvent(row, reason, spend, endedAt) });
  }

  /** Raises `budget_exceeded` and queues `on_budget_exceeded`, with the spend as of `at` (when the destroy was decided). */
  async budgetExceeded(trx: Tx, row: store.SandboxRow, at: string): Promise<void> {
    const spend = await this.spend.ofOne(row.id, { db: trx, nowMs: Date.parse(at) });
    const budget = Number(row.budget);
    await this.alerts.raise(
      {
        accountId: row.account_id,
        type: 'budget_exceeded',
        resource: { kind: 'sandbox', id: row.id },
        sandboxId: row.id,
        message: `Sandbox ${row.id} spent $${usd(spend.totalUsd).toFixed(4)} of its $${budget} budget and was destroyed`,
        details: { budget, spend_usd: usd(spend.totalUsd), fraction: usd(spend.totalUsd / budget) },
      },
      { db: trx },
    );
    if (row.on_budget_exceeded) {
      await queueCallback(this.outbox, trx, { accountId: row.account_id, sandboxId: row.id, url: row.on_budget_exceeded, event: budgetExceededEvent(row, spend, at) });
    }
  }

  /** Delivers what the committed transaction queued now rather than at the next poll. */
  wake(): void {
    this.outbox.wake();
  }
}
