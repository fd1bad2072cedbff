// Destroying a sandbox (DELETE, or its budget): consumers holding live connections close them, the
// runtime removes everything, then the lifecycle records `sandbox.destroyed` with its reason, the
// metering closed at the moment of the decision, and the completion callbacks.
import type { SandboxContext } from './context.js';
import type { DestroyReason } from './lifecycle/contract.js';
import type { SandboxRow } from './store.js';

/** False when another change destroyed it first. */
export async function destroySandbox(ctx: SandboxContext, row: SandboxRow, reason: DestroyReason): Promise<boolean> {
  const { id } = row;
  ctx.lifecycle.beforeTeardown({ id, accountId: row.account_id });
  const decidedMs = Date.now();
  const decidedAt = new Date(decidedMs).toISOString();
  ctx.ending.add(id);
  try {
    await ctx.runtime.destroy(id);
    ctx.secrets.forget(id);
    const committed = await ctx.lifecycle.transitionIfAllowed(id, {
      type: 'sandbox.destroyed',
      changes: (at) => ({ destroyed_at: at, destroyed_reason: reason }),
      decidedAt,
      data: { reason, duration_ms: Date.now() - decidedMs },
    });
    return committed !== null;
  } finally {
    ctx.ending.delete(id);
  }
}
