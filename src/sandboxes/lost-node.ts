// Sandboxes of a node declared lost (scale-out) go `error` with reason `node_lost`, through the lifecycle:
// no runtime is involved, so an api node (no runtime) declares them too, with a lifecycle of its own over
// the same tables, effects and consumers as the sandbox service's, and answers reads of them.
import type { Kysely } from 'kysely';
import type { AlertRaiser } from '../alerts/contract.js';
import type { SpendCalculator } from '../billing/metering/spend.js';
import type { Database } from '../core/db/schema.js';
import type { Logger } from '../core/logging.js';
import type { Outbox } from '../core/outbox/outbox.js';
import { NO_PUBLISHER, type EventPublisher } from '../core/events/published.js';
import { SandboxEndings } from './endings.js';
import type { LifecycleConsumer } from './lifecycle/contract.js';
import { SandboxLifecycle } from './lifecycle/lifecycle.js';
import { SandboxRecords, type SandboxReads } from './reads.js';
import * as store from './store.js';

/** What declaring a node's sandboxes lost needs: no runtime. */
export interface LostNodeContext {
  db: Kysely<Database>;
  lifecycle: SandboxLifecycle;
  log: Logger;
}

/** The live sandboxes of node `hostId` go `error` (node_lost); how many did. They are never resurrected: when
 * the node comes back, its reconcile removes their containers. */
export async function failLostNode(ctx: LostNodeContext, hostId: string): Promise<number> {
  let failed = 0;
  for (const row of await store.sandboxesInStatus(ctx.db, hostId, store.LIVE_STATUSES)) {
    const error = `node_lost: the node running it (${hostId}) stopped sending heartbeats and was declared lost`;
    const committed = await ctx.lifecycle.transitionIfAllowed(row.id, { type: 'sandbox.error', onlyFrom: store.LIVE_STATUSES, changes: { error }, data: { reason: 'node_lost', node: hostId } });
    if (committed) failed++;
  }
  if (failed) ctx.log.warn({ node: hostId, sandboxes: failed }, 'sandboxes of a lost node moved to error (node_lost)');
  return failed;
}

export interface LostNodeSandboxesDeps {
  db: Kysely<Database>;
  alerts: AlertRaiser;
  spend: SpendCalculator;
  outbox: Outbox;
  publisher?: EventPublisher;
  consumers?: readonly LifecycleConsumer[];
  log: Logger;
}

export interface SandboxesWithoutRuntime {
  declareLost(hostId: string): Promise<number>;
  reads: SandboxReads;
}

/** What a node without a runtime does with sandboxes: read them, and declare a lost node's (a node with a runtime uses its sandbox service). */
export function sandboxesWithoutRuntime(deps: LostNodeSandboxesDeps): SandboxesWithoutRuntime {
  const endings = new SandboxEndings(deps.alerts, deps.spend, deps.outbox);
  const lifecycle = new SandboxLifecycle({ db: deps.db, alerts: deps.alerts, endings, publisher: deps.publisher ?? NO_PUBLISHER, log: deps.log, wakeOutbox: () => endings.wake() });
  for (const consumer of deps.consumers ?? []) lifecycle.subscribe(consumer);
  return { declareLost: (hostId) => failLostNode({ db: deps.db, lifecycle, log: deps.log }, hostId), reads: new SandboxRecords(deps.db, deps.spend, lifecycle) };
}
