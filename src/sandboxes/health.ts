// Sandboxes whose processes went away: found by the monitor's crash check while the server runs, and by
// reconciliation after a restart. Both move them to `error` through the lifecycle.
import { RuntimeUnresponsive } from '../runtime/errors.js';
import { enterError, type SandboxContext } from './context.js';
import * as store from './store.js';

/** Running and paused sandboxes whose processes are gone (crashed, killed, OOM): `error` with `sandbox_error`. */
export async function failCrashed(ctx: SandboxContext): Promise<string[]> {
  const failed: string[] = [];
  for (const row of await store.sandboxesInStatus(ctx.db, ctx.config.hostId, ['running', 'paused'])) {
    if (ctx.locks.busy(row.id) || ctx.ending.has(row.id)) continue;
    // Under the sandbox's lock: a checkpoint or restore in progress has no process for a moment.
    const crashed = await ctx.locks.run(row.id, async () => {
      const stateNow = () => ctx.runtime.state(row.id).catch((error) => (error instanceof RuntimeUnresponsive ? ('unresponsive' as const) : ('stopped' as const)));
      const first = await stateNow();
      if (first === 'running' || first === 'paused') return false;
      // The runtime's state command can fail for a moment while the container changes state; ask twice.
      await new Promise((resolve) => setTimeout(resolve, 250));
      const state = await stateNow();
      if (state === 'running' || state === 'paused' || ctx.ending.has(row.id)) return false;
      const reason = state === 'unresponsive' ? 'the runtime stopped answering for it (its control channel is wedged)' : 'its processes exited (crashed or killed)';
      return enterError(ctx, row.id, ['running', 'paused'], `sandbox stopped unexpectedly: ${reason}`);
    });
    if (crashed) failed.push(row.id);
  }
  return failed;
}

/** After a restart: keep live sandboxes, mark dead ones `error`, let the runtime clean leftovers. */
export async function reconcileSandboxes(ctx: SandboxContext): Promise<void> {
  await store.adoptUnhostedSandboxes(ctx.db, ctx.config.hostId);
  const known = await store.sandboxesInStatus(ctx.db, ctx.config.hostId, store.LIVE_STATUSES);
  const result = await ctx.runtime.reconcile(known.map((row) => row.id));
  for (const id of result.dead) {
    await enterError(ctx, id, store.LIVE_STATUSES, 'sandbox processes were gone after a server restart');
  }
  // Set-up cannot resume after a restart: a sandbox still creating is left in error.
  for (const row of known.filter((r) => r.status === 'creating' && !result.dead.includes(r.id))) {
    await enterError(ctx, row.id, ['creating'], 'the server restarted during set-up');
  }
  // Nor can a restore: its filesystem may be half swapped.
  for (const row of known.filter((r) => r.status === 'restoring' && !result.dead.includes(r.id))) {
    await enterError(ctx, row.id, ['restoring'], 'the server restarted while a snapshot was being restored');
  }
  await ctx.lifecycle.keepMetering(known.filter((r) => r.status === 'running' && result.alive.includes(r.id)));
  ctx.log.info({ alive: result.alive.length, dead: result.dead.length, cleaned: result.cleaned.length }, 'sandboxes reconciled');
}
