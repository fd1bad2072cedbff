// PADDOCK_WARM_POOL: the runtime keeps pre-started sandboxes of the default shape ready; create takes
// one when it fits (runtime.reserveWarm), and `sandbox.created` says whether it did (`warm`).
import { newId } from '../core/ids.js';
import type { SandboxContext } from './context.js';
import { DEFAULT_CPUS, DEFAULT_DISK_GB, DEFAULT_MEMORY_MB } from './create-input.js';

/** After `reconcile`, which would remove the pool's sandboxes as unknown. */
export function startWarmPool(ctx: SandboxContext): void {
  ctx.runtime.startWarmPool?.({
    targets: ctx.config.warmPool,
    base: { cpus: DEFAULT_CPUS, memoryMb: DEFAULT_MEMORY_MB, diskGb: DEFAULT_DISK_GB, networkMode: 'full', allowlist: [] },
    newId: () => newId('sbx'),
    log: ctx.log,
  });
}
