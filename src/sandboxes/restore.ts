// A sandbox is `restoring` while a snapshot's files replace its own (exec and files answer that it is
// busy); the lifecycle records running → restoring → running, or `error` when the restore failed.
import { getSandbox, enterError, type SandboxContext } from './context.js';
import * as store from './store.js';

/**
 * `confidentialSource`: the files come from a confidential sandbox, so this one becomes confidential
 * before any of them is in place. `data` (the snapshot id) goes on both events.
 */
export async function whileRestoring<T>(
  ctx: SandboxContext,
  accountId: string,
  id: string,
  work: (row: store.SandboxRow) => Promise<T>,
  confidentialSource: boolean,
  data: Record<string, unknown>,
): Promise<T> {
  return ctx.locks.run(id, async () => {
    const row = await getSandbox(ctx, accountId, id);
    if (confidentialSource && row.confidential !== 1) await store.updateSandbox(ctx.db, id, { confidential: 1 });
    await ctx.lifecycle.transition(id, { type: 'sandbox.restoring', data });
    try {
      const result = await work(row);
      await ctx.lifecycle.transition(id, { type: 'sandbox.restored', changes: (at) => ({ last_activity_at: at }), data });
      return result;
    } catch (error) {
      await enterError(ctx, id, ['restoring'], `restoring a snapshot failed: ${(error as Error).message}`);
      throw error;
    }
  });
}
