// Wires sandboxes into the app: the service (the lifecycle inside it, with its publisher), reconciliation,
// the lifecycle's in-process consumers (budgets, session recording of exec, terminals, port scanning),
// the routes of sandboxes and their sub-features, the monitor and the warm pool.
import type { FastifyInstance } from 'fastify';
import type { AlertRaiser, AlertThresholds } from '../alerts/contract.js';
import type { SpendCalculator } from '../billing/metering/spend.js';
import { BudgetSweeper } from '../budgets/sweeper.js';
import type { Config } from '../config.js';
import type { Storage } from '../core/db/database.js';
import type { EventPublisher } from '../core/events/published.js';
import type { Outbox } from '../core/outbox/outbox.js';
import type { LimiterFactory } from '../core/rate-limit.js';
import { registerPortsAndPreviews } from '../ports/plugin.js';
import type { SandboxRuntime } from '../runtime/runtime.js';
import type { SessionService } from '../sessions/service.js';
import { registerSnapshots } from '../snapshots/plugin.js';
import type { SnapshotService } from '../snapshots/service.js';
import { terminalRoutes } from '../terminal/routes.js';
import type { PlanLock } from './context.js';
import { SandboxEndings } from './endings.js';
import { sandboxEventRoutes } from './events-routes.js';
import { fileRoutes } from './files-routes.js';
import type { SecretValues } from './injected-secrets.js';
import type { LifecycleConsumer } from './lifecycle/contract.js';
import { SandboxMonitor } from './monitor.js';
import { pauseRoutes } from './pause-routes.js';
import { sandboxRoutes } from './routes.js';
import { SandboxService } from './service.js';

export interface SandboxesDeps {
  config: Config;
  storage: Storage;
  runtime: SandboxRuntime;
  limiters: LimiterFactory;
  alerts: AlertRaiser & AlertThresholds;
  outbox: Outbox;
  spend: SpendCalculator;
  accounts: PlanLock;
  sessions: SessionService;
  secretValues: SecretValues;
  secretsKey: Buffer;
  /** Receives every lifecycle event inside its transaction (webhooks). */
  publisher?: EventPublisher;
  /** More in-process consumers (metrics). */
  consumers?: readonly LifecycleConsumer[];
}

export interface SandboxesFeature {
  sandboxes: SandboxService;
  budgets: BudgetSweeper;
  snapshots: SnapshotService;
}

export async function registerSandboxes(app: FastifyInstance, deps: SandboxesDeps): Promise<SandboxesFeature> {
  const { config, storage, runtime } = deps;
  const sandboxes = new SandboxService({
    db: storage.db, runtime, config, log: app.log, alerts: deps.alerts, spend: deps.spend,
    endings: new SandboxEndings(deps.alerts, deps.spend, deps.outbox),
    accounts: deps.accounts, secretValues: deps.secretValues, publisher: deps.publisher,
  });
  await sandboxes.reconcile();

  const budgets = new BudgetSweeper(storage.db, sandboxes, deps.spend, deps.alerts, config.budgetCheckIntervalMs, app.log);
  sandboxes.lifecycle.subscribe(budgets.consumer);
  sandboxes.lifecycle.subscribe(sessionRecording(deps.sessions));
  for (const consumer of deps.consumers ?? []) sandboxes.lifecycle.subscribe(consumer);
  app.addHook('onReady', async () => budgets.start());
  app.addHook('onClose', async () => budgets.stop());

  await app.register(sandboxRoutes(sandboxes, config.dataDir, runtime));
  await app.register(sandboxEventRoutes(sandboxes));
  await app.register(fileRoutes(sandboxes));
  await registerPortsAndPreviews(app, { config, db: storage.db, runtime, sandboxes, limiters: deps.limiters });
  await app.register(terminalRoutes(sandboxes, runtime, config));
  app.addHook('onClose', async () => sandboxes.settled());
  const snapshots = await registerSnapshots(app, { config, db: storage.db, runtime, sandboxes, accounts: deps.accounts, secretsKey: deps.secretsKey });
  await app.register(pauseRoutes(sandboxes, snapshots, runtime.name));

  const monitor = new SandboxMonitor(sandboxes, snapshots, app.log);
  app.addHook('onReady', async () => monitor.start());
  app.addHook('onClose', async () => monitor.stop());
  // After reconcile (above), which removes sandboxes the database does not know; the runtime's close destroys the pool.
  app.addHook('onReady', async () => sandboxes.startWarmPool());
  return { sandboxes, budgets, snapshots };
}

/** Commands run through the exec API become `command` events of the sandbox's session (masked output). */
function sessionRecording(sessions: SessionService): LifecycleConsumer {
  return {
    name: 'session recording',
    onExec: (exec) =>
      sessions.recordCommand({ accountId: exec.accountId, sandboxId: exec.sandboxId, command: exec.command, exitCode: exec.exitCode, output: exec.output, durationMs: exec.durationMs, timedOut: exec.timedOut, truncated: exec.truncated, error: exec.error }),
  };
}
