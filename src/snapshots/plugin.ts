// Wires snapshots into the app: the local store, routes (and the node call of a restore across nodes),
// and clean-up on close. The returned service is the pause path's PauseSnapshots port (the automatic
// snapshot of a pause).
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../core/db/schema.js';
import type { SandboxRuntime } from '../runtime/runtime.js';
import { derivedKey } from '../secrets/key.js';
import type { PlanLock } from '../sandboxes/context.js';
import type { SandboxService } from '../sandboxes/service.js';
import { LocalSnapshotStorage } from './local-storage.js';
import { peerRestoreRoute } from './peer-restore-route.js';
import { snapshotRoutes } from './routes.js';
import { SnapshotService } from './service.js';

export async function registerSnapshots(
  app: FastifyInstance,
  options: { config: Config; db: Kysely<Database>; runtime: SandboxRuntime; sandboxes: SandboxService; accounts: PlanLock; secretsKey: Buffer },
): Promise<SnapshotService> {
  const storage = new LocalSnapshotStorage(options.config.snapshots.dir);
  await storage.init();
  const snapshots = new SnapshotService(
    options.db,
    options.accounts,
    options.runtime,
    options.sandboxes,
    storage,
    options.config.snapshots,
    derivedKey(options.secretsKey, 'paddock snapshot download url'),
    app.log,
    { hostId: options.config.hostId, retryAfterSeconds: Math.max(1, Math.ceil(options.config.cluster.heartbeatMs / 1000)) },
  );
  await snapshots.reconcile();
  await app.register(snapshotRoutes(snapshots, options.config.publicUrl));
  await app.register(peerRestoreRoute(snapshots, options.config.cluster.secret));
  app.addHook('onClose', async () => snapshots.settled());
  return snapshots;
}
