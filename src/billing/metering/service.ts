// Compute metering: the sandbox feature calls `startMetering` when a sandbox starts running and
// `stopMetering` when it stops (destroy, error, pause); `ComputeMeter` answers what sandboxes cost.
import type { Kysely } from 'kysely';
import type { Database } from '../../core/db/schema.js';
import { newId } from '../../core/ids.js';
import { computeCostUsd, currentUsdPerSecond, type ComputeRates, type UsageInterval, type Window } from './meter.js';
import * as store from './store.js';

export interface MeteredSandbox {
  id: string;
  account_id: string;
  cpus: number;
  memory_mb: number;
}

/** Starts charging `sandbox` from `at` (ISO time); a no-op while it already runs. Pass the caller's transaction. */
export async function startMetering(db: Kysely<Database>, sandbox: MeteredSandbox, at: string): Promise<void> {
  await store.openInterval(db, { id: newId('use'), sandbox_id: sandbox.id, account_id: sandbox.account_id, cpus: sandbox.cpus, memory_mb: sandbox.memory_mb, started_at: at, ended_at: null });
}

/** Stops charging the sandbox at `at`; a no-op when it is not being charged. */
export async function stopMetering(db: Kysely<Database>, sandboxId: string, at: string): Promise<void> {
  await store.closeInterval(db, sandboxId, at);
}

function toInterval(row: store.UsageRow): UsageInterval {
  return { cpus: row.cpus, memoryMb: row.memory_mb, startedAt: row.started_at, endedAt: row.ended_at };
}

export interface SandboxCompute {
  costUsd: number;
  /** What it costs per second now (0 when not running): budgets predict the next threshold from it. */
  usdPerSecond: number;
}

export class ComputeMeter {
  constructor(
    private readonly db: Kysely<Database>,
    readonly rates: ComputeRates,
  ) {}

  /** Compute cost and current rate per sandbox id (ids without usage get 0); `db` lets a caller read inside its transaction. */
  async ofSandboxes(sandboxIds: readonly string[], options: { nowMs?: number; window?: Window; db?: Kysely<Database> } = {}): Promise<Map<string, SandboxCompute>> {
    const nowMs = options.nowMs ?? Date.now();
    const rows = sandboxIds.length ? await store.intervalsOf(options.db ?? this.db, [...new Set(sandboxIds)]) : [];
    const bySandbox = new Map<string, UsageInterval[]>(sandboxIds.map((id) => [id, []]));
    for (const row of rows) bySandbox.get(row.sandbox_id)!.push(toInterval(row));
    const result = new Map<string, SandboxCompute>();
    for (const [id, intervals] of bySandbox) {
      result.set(id, { costUsd: computeCostUsd(intervals, this.rates, nowMs, options.window), usdPerSecond: currentUsdPerSecond(intervals, this.rates) });
    }
    return result;
  }

  /** Total compute cost in USD of a set of sandboxes (pipelines use it for `cost_below` gates). */
  async computeCostUsd(sandboxIds: readonly string[], options: { nowMs?: number; window?: Window } = {}): Promise<number> {
    let total = 0;
    for (const compute of (await this.ofSandboxes(sandboxIds, options)).values()) total += compute.costUsd;
    return total;
  }
}
