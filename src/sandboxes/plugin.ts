// Wires sandboxes into the app: the service (the lifecycle inside it, with its publisher and consumers),
// reconciliation, the sandbox, event and file routes, the warm pool; then, once the snapshot feature
// exists, pause and resume with the idle monitor. The features around a sandbox (budgets, ports and
// previews, terminals, snapshots) register themselves in app.ts and react to lifecycle events.
import { nodeAdmission } from './node-admission.js';
import type { FastifyInstance } from 'fastify';
import type { AlertRaiser, AlertThresholds } from '../alerts/contract.js';
import type { SpendCalculator } from '../billing/metering/spend.js';
import type { Config } from '../config.js';
import type { Storage } from '../core/db/database.js';
import type { EventPublisher } from '../core/events/published.js';
import type { Outbox } from '../core/outbox/outbox.js';
import type { SandboxRuntime } from '../runtime/runtime.js';
import type { PlanAdmission, PlanLock } from './context.js';
import { SandboxEndings } from './endings.js';
import { sandboxesWithoutRuntime, type LostNodeSandboxesDeps, type SandboxesWithoutRuntime } from './lost-node.js';
import { fileRoutes } from './files-routes.js';
import type { SecretValues } from './injected-secrets.js';
import type { LifecycleConsumer } from './lifecycle/contract.js';
import { SandboxMonitor } from './monitor.js';
import { pauseRoutes } from './pause-routes.js';
import { sandboxReadRoutes } from './read-routes.js';
import { sandboxRoutes } from './routes.js';
import { SandboxService, type PauseSnapshots } from './service.js';

export interface SandboxesDeps {
  config: Config;
  storage: Storage;
  runtime: SandboxRuntime;
  alerts: AlertRaiser & AlertThresholds;
  outbox: Outbox;
  spend: SpendCalculator;
  accounts: PlanLock;
  plans: PlanAdmission;
  secretValues: SecretValues;
  /** Receives every lifecycle event inside its transaction (webhooks). */
  publisher?: EventPublisher;
  /** In-process consumers of committed lifecycle events (session recording, metrics); more may subscribe later. */
  consumers?: readonly LifecycleConsumer[];
}

export async function registerSandboxes(app: FastifyInstance, deps: SandboxesDeps): Promise<SandboxService> {
  const { config, storage, runtime } = deps;
  const sandboxes = new SandboxService({
    db: storage.db,
    runtime,
    config,
    log: app.log,
    alerts: deps.alerts,
    spend: deps.spend,
    endings: new SandboxEndings(deps.alerts, deps.spend, deps.outbox),
    accounts: deps.accounts,
    plans: deps.plans,
    secretValues: deps.secretValues,
    publisher: deps.publisher,
    node: nodeAdmission(config.cluster, config.hostId, storage.sqlDialect),
  });
  // On ready, before anything else starts: building the app alone (`npm run sdk:generate` describes its
  // routes) must not touch the host's sandboxes.
  app.addHook('onReady', async () => sandboxes.reconcile());
  for (const consumer of deps.consumers ?? []) sandboxes.lifecycle.subscribe(consumer);

  await app.register(sandboxRoutes(sandboxes, config.dataDir, runtime));
  await app.register(sandboxReadRoutes(sandboxes));
  await app.register(fileRoutes(sandboxes));
  app.addHook('onClose', async () => sandboxes.settled());
  // After reconcile (the hook above), which removes sandboxes the database does not know; the runtime's close destroys the pool.
  app.addHook('onReady', async () => sandboxes.startWarmPool());
  return sandboxes;
}

/** Pause and resume (the pause snapshot is taken while the sandbox is frozen, through the port), and the monitor that pauses idle sandboxes. */
export async function registerPauses(app: FastifyInstance, sandboxes: SandboxService, pauseSnapshots: PauseSnapshots, runtimeName: string): Promise<void> {
  await app.register(pauseRoutes(sandboxes, pauseSnapshots, runtimeName));
  const monitor = new SandboxMonitor(sandboxes, pauseSnapshots, app.log);
  app.addHook('onReady', async () => monitor.start());
  app.addHook('onClose', async () => monitor.stop());
}

/** A node without a runtime (an api node) serves the sandbox reads from the database and declares lost nodes' sandboxes. */
export async function registerSandboxesWithoutRuntime(app: FastifyInstance, deps: Omit<LostNodeSandboxesDeps, 'log'>): Promise<SandboxesWithoutRuntime> {
  const sandboxes = sandboxesWithoutRuntime({ ...deps, log: app.log });
  await app.register(sandboxReadRoutes(sandboxes.reads));
  return sandboxes;
}
