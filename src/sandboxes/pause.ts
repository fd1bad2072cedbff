// Pause and resume: the runtime freezes or thaws the processes, the lifecycle records the edge (compute
// metering closes or opens with it). The pause's automatic snapshot is a port the pause path calls, not
// a consumer: it must run while the sandbox is frozen and under its lock, and the pause API answers its id.
import type { Plan } from '../config.js';
import { Conflict, LimitExceeded } from '../core/errors.js';
import { SandboxNotFound } from '../runtime/errors.js';
import { enterError, getSandbox, type SandboxContext } from './context.js';
import { LifecycleConflict } from './lifecycle/edges.js';
import * as store from './store.js';

export interface PauseSnapshot {
  snapshot_id: string | null;
  /** Why no automatic snapshot was taken (a snapshot limit), when none was. */
  snapshot_error?: string;
}

/** Takes the automatic snapshot of a pause (the snapshots feature), the sandbox frozen and its lock held. */
export interface PauseSnapshots {
  takeOnPause(row: store.SandboxRow): Promise<PauseSnapshot>;
}

export type PauseReason = 'request' | 'idle_timeout' | 'compute_quota';

/**
 * running → paused: every process frozen, no CPU (and so no compute charge), then the automatic snapshot.
 * Pausing a paused sandbox changes nothing. The status change is the moment compute stops.
 */
export async function pauseSandbox(
  ctx: SandboxContext,
  accountId: string,
  id: string,
  reason: PauseReason,
  snapshots: PauseSnapshots | null,
): Promise<{ row: store.SandboxRow; snapshot: PauseSnapshot | null }> {
  return ctx.locks.run(id, async () => {
    const row = await getSandbox(ctx, accountId, id);
    if (row.status === 'paused') return { row, snapshot: null };
    ctx.lifecycle.requireEdge('sandbox.paused', row.status);
    try {
      await ctx.runtime.pause(id);
    } catch (error) {
      await failIfGone(ctx, id, error);
      throw error;
    }
    let paused: store.SandboxRow;
    try {
      ({ row: paused } = await ctx.lifecycle.transition(id, { type: 'sandbox.paused', changes: (at) => ({ paused_at: at }), data: { reason } }));
    } catch (error) {
      if (!(error instanceof LifecycleConflict)) throw error;
      // Destroyed or failed meanwhile: leave it as the other change left it.
      await ctx.runtime.resume(id).catch(() => {});
      throw new Conflict('sandbox changed state while being paused; try again', 'sandbox_not_running');
    }
    if (!snapshots) return { row: paused, snapshot: { snapshot_id: null } };
    try {
      return { row: paused, snapshot: await snapshots.takeOnPause(paused) };
    } catch (error) {
      // The pause itself happened; only its snapshot is missing, and the answer says so.
      ctx.log.error({ err: error, sandbox_id: id }, 'automatic pause snapshot could not start');
      return { row: paused, snapshot: { snapshot_id: null, snapshot_error: 'the automatic snapshot could not be taken' } };
    }
  });
}

/** paused → running. Resuming a running sandbox changes nothing. Waits for the automatic snapshot's copy (the lock). */
export async function resumeSandbox(ctx: SandboxContext, accountId: string, id: string, plan: Plan): Promise<store.SandboxRow> {
  return ctx.locks.run(id, async () => {
    const row = await getSandbox(ctx, accountId, id);
    if (row.status === 'running') return row;
    ctx.lifecycle.requireEdge('sandbox.resumed', row.status);
    // Otherwise the compute quota would not hold: the quota paused it, and resuming starts the charge again.
    const refusal = await ctx.plans.refusal(accountId, plan);
    if (refusal) throw new LimitExceeded(refusal, 'plan_limit');
    try {
      await ctx.runtime.resume(id);
    } catch (error) {
      await failIfGone(ctx, id, error);
      throw error;
    }
    // A fresh activity time, or the idle timeout would pause it at once. Compute is charged again from here.
    const { row: resumed } = await ctx.lifecycle.transition(id, { type: 'sandbox.resumed', changes: (at) => ({ paused_at: null, last_activity_at: at }), data: { budget: row.budget } });
    return resumed;
  });
}

/** The account's running sandboxes on this server, paused (compute quota reached); how many were. */
export async function pauseAllRunning(ctx: SandboxContext, accountId: string, snapshots: PauseSnapshots | null): Promise<number> {
  let paused = 0;
  for (const id of await store.runningSandboxIdsOf(ctx.db, accountId, ctx.config.hostId)) {
    try {
      const { snapshot } = await pauseSandbox(ctx, accountId, id, 'compute_quota', snapshots);
      if (snapshot) paused++;
    } catch (error) {
      ctx.log.warn({ err: error, sandbox_id: id }, 'could not pause a sandbox at the compute quota');
    }
  }
  return paused;
}

/** Running sandboxes with a `timeout` that have seen no activity for that long: paused, with an `idle_timeout` alert. */
export async function pauseIdle(ctx: SandboxContext, snapshots: PauseSnapshots | null, now = Date.now()): Promise<string[]> {
  const paused: string[] = [];
  for (const row of await store.idleCandidates(ctx.db, ctx.config.hostId)) {
    if (row.timeout === null || Date.parse(row.last_activity_at) + row.timeout * 1000 > now || ctx.locks.busy(row.id)) continue;
    try {
      await pauseSandbox(ctx, row.account_id, row.id, 'idle_timeout', snapshots);
      paused.push(row.id);
    } catch (error) {
      ctx.log.warn({ err: error, sandbox_id: row.id }, 'could not pause an idle sandbox');
    }
  }
  return paused;
}

export async function failIfGone(ctx: SandboxContext, id: string, error: unknown): Promise<void> {
  if (error instanceof SandboxNotFound || (await ctx.runtime.state(id).catch(() => 'stopped')) === 'stopped') {
    await enterError(ctx, id, ['running', 'creating'], `sandbox stopped unexpectedly: ${(error as Error).message}`);
  }
}
