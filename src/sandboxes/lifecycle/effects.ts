// What each edge does besides the status, inside the transaction that records it: compute metering
// opens while a sandbox can run (created, resumed) and closes when it stops (paused, error, destroyed),
// alerts (idle_timeout, sandbox_error, budget_exceeded) and the completion callbacks.
import type { Tx } from '../../core/db/handles.js';
import type { Kysely } from 'kysely';
import type { AlertRaiser } from '../../alerts/contract.js';
import { startMetering, stopMetering } from '../../billing/metering/service.js';
import type { Database } from '../../core/db/schema.js';
import type { SandboxEndings } from '../endings.js';
import type { SandboxRow } from '../store.js';
import type { EdgeEventType } from './edges.js';

export interface EdgeEffectDeps {
  alerts: AlertRaiser;
  endings: SandboxEndings;
}

export interface EdgeTaken {
  type: EdgeEventType;
  before: SandboxRow;
  after: SandboxRow;
  data: Record<string, unknown>;
  at: string;
  decidedAt: string;
}

export async function applyEdgeEffects(trx: Tx, deps: EdgeEffectDeps, edge: EdgeTaken): Promise<void> {
  const { after: row, at } = edge;
  const alert = { accountId: row.account_id, resource: { kind: 'sandbox', id: row.id }, sandboxId: row.id } as const;
  switch (edge.type) {
    case 'sandbox.created':
    case 'sandbox.resumed':
      // Charged from the moment its processes run, set-up included.
      await startMetering(trx, row, at);
      return;
    case 'sandbox.paused':
      await stopMetering(trx, row.id, at);
      if (edge.data.reason === 'idle_timeout') {
        await deps.alerts.raise(
          {
            ...alert,
            type: 'idle_timeout',
            message: `Sandbox ${row.id} was paused after ${edge.before.timeout} s without activity`,
            details: { timeout: edge.before.timeout, last_activity_at: edge.before.last_activity_at },
          },
          { db: trx },
        );
      }
      return;
    case 'sandbox.error': {
      const error = String(edge.data.reason);
      await stopMetering(trx, row.id, at);
      await deps.alerts.raise({ ...alert, type: 'sandbox_error', message: `Sandbox ${row.id} entered the error state: ${row.error ?? error}`, details: { error } }, { db: trx });
      await deps.endings.complete(trx, row.id, 'error', at);
      return;
    }
    case 'sandbox.destroyed': {
      // Charging stopped when the destroy was decided: tearing down is not time the user can use.
      await stopMetering(trx, row.id, edge.decidedAt);
      const reason = edge.data.reason === 'budget_exceeded' ? 'budget_exceeded' : 'deleted';
      if (reason === 'budget_exceeded') await deps.endings.budgetExceeded(trx, edge.before, edge.decidedAt);
      await deps.endings.complete(trx, row.id, reason, at);
      return;
    }
    case 'sandbox.running':
    case 'sandbox.restoring':
    case 'sandbox.restored':
      return;
  }
}
