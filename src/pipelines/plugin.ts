// Registers pipelines: definitions, runs, state, and this process's stage worker. Stage executors come
// from `buildStageExecutors` — the one place a stage type is bound to the code that runs it.
import type { FastifyInstance } from 'fastify';
import type { NotificationService } from '../alerts/notifications/service.js';
import type { Config, Plan } from '../config.js';
import type { Principal } from '../core/access.js';
import type { Storage } from '../core/db/database.js';
import type { Database } from '../core/db/schema.js';
import type { EventPublisher } from '../core/events/published.js';
import { SandboxDirectory } from '../sandboxes/directory.js';
import type { SandboxService } from '../sandboxes/service.js';
import type { ApprovalChannel } from './definition/approval-channels.js';
import { StageCensus } from './engine/counts.js';
import { Transitions, type ApprovalNotifier, type RunSessions } from './engine/transitions.js';
import { PipelineWorker, type StageSandboxes } from './engine/worker.js';
import { runRoutes } from './run-routes.js';
import { pipelineRoutes } from './routes.js';
import { runCostUsd, runTrust, type ComputeCostOf, type RunSessionTotals } from './runs/cost-and-trust.js';
import { RunService } from './runs/service.js';
import { PipelineService, type MissingSecrets } from './service.js';
import { commandExecutor } from './stages/command.js';
import { gateExecutor } from './stages/gate.js';
import type { StageExecutors } from './stages/registry.js';
import { StateGateway } from './state/gateway.js';
import { StateService } from './state/service.js';
import { configOf } from './definition/types.js';
import type { RunObserver } from './engine/run-observer.js';

export interface PipelinesFeature {
  pipelines: PipelineService;
  runs: RunService;
  state: StateService;
  worker: PipelineWorker;
  /** Stage attempts and the stage queue in numbers (metrics). */
  counts: StageCensus;
  /** What a run has cost so far: metered compute of its sandboxes + LLM cost of its sessions + what its stages reported (USD). */
  costOf(runId: string): Promise<number>;
  /** The lowest trust score among the run's sessions (100 without any). */
  trustOf(runId: string): Promise<{ score: number; sessions: number }>;
}

export interface PipelineOptions {
  config: Config;
  storage: Storage;
  notifications: NotificationService;
  /** Each run's session: created with the run, fed every lifecycle event in the transition's transaction; its totals feed gates. */
  sessions: RunSessions & RunSessionTotals;
  /** The account's plan, for the principal a command stage acts as. */
  planOf(accountId: string): Promise<Plan>;
  /** Receives the spec's pipeline events (`pipeline.run.*`, `pipeline.stage.*`) in each transition's transaction; default: none. */
  events?: EventPublisher;
  /** Null when the server runs without a sandbox runtime: command stages then fail saying so. */
  sandboxes: SandboxService | null;
  /** Metered compute cost of sandboxes, for `cost_below` gates. */
  computeCostOf: ComputeCostOf;
  /** Executors for more stage types (`eval`, `a2a`), added to command and gate. */
  extraExecutors?: StageExecutors;
  /** The host's address on the sandbox bridge, where the state gateway listens; null: no gateway. */
  bridgeAddress?: () => string | null;
  /** Follow every run's lifecycle events inside their transitions' transactions (agent delegation's tasks); default: none. */
  observers?: RunObserver[];
  /** The secrets feature's: which account secret names do not exist (a2a stages' `auth_secret`, checked at save); default: none missing. */
  missingSecrets?: MissingSecrets;
}

async function principalFor(options: PipelineOptions, accountId: string): Promise<Principal> {
  return { accountId, plan: await options.planOf(accountId), scope: 'full', keyId: null };
}

function approvalNotifier(notifications: NotificationService): ApprovalNotifier {
  return {
    async notify(trx, { accountId, run, stage, deadline }) {
      const approval = configOf(stage, 'await_approval');
      const channels = (approval?.channels ?? ['dashboard']).filter((channel) => channel !== 'dashboard');
      const message = approval?.message ?? `Stage ${stage.name} of pipeline ${run.pipeline_name} is waiting for approval.`;
      await notifications.create(trx, {
        accountId,
        alertId: null,
        type: 'pipeline_approval',
        severity: 'warning',
        title: `Approval needed: ${run.pipeline_name} / ${stage.name}`,
        message: `${message} Approve or reject with POST /v1/pipelines/${run.pipeline_id}/runs/${run.id}/approve (or /reject).${deadline ? ` Decided automatically at ${deadline}.` : ''}`,
        sandboxId: null,
        channels,
        event: { type: 'pipeline.stage.paused_approval', data: { pipeline_id: run.pipeline_id, run_id: run.id, stage: stage.name, message, approval_deadline: deadline } },
      });
    },
  };
}

function stageSandboxes(directory: SandboxDirectory, sandboxes: SandboxService): StageSandboxes {
  return { notDestroyed: () => directory.notDestroyed(), destroy: (accountId, sandboxId) => sandboxes.destroy(accountId, sandboxId) };
}

/** Sandbox teardowns running in the background, so shutdown can wait for them. */
class Teardowns {
  private readonly pending = new Set<Promise<unknown>>();
  track(work: Promise<unknown>): void {
    const settled = work.catch(() => {}).finally(() => this.pending.delete(settled));
    this.pending.add(settled);
  }
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }
}

export function buildStageExecutors(options: PipelineOptions, transitions: Transitions, teardowns: Teardowns, gateway: StateGateway): StageExecutors {
  const { db } = options.storage;
  const executors: StageExecutors = {
    gate: gateExecutor({
      trustOf: (runId) => runTrust(db, options.sessions, runId),
      costOf: (runId) => runCostUsd(db, options.sessions, options.computeCostOf, runId),
      scopeOf: (runId) => transitions.expressionScope(runId),
    }),
    ...options.extraExecutors,
  };
  if (options.sandboxes) {
    const sandboxes = options.sandboxes;
    executors.command = commandExecutor({
      sandboxes,
      principalFor: (accountId) => principalFor(options, accountId),
      destroyInBackground: (accountId, sandboxId) => teardowns.track(sandboxes.destroy(accountId, sandboxId)),
      stateAccess: async (context) => gateway.accessFor(context.runId, context.stageName),
    });
  }
  return executors;
}

export async function registerPipelines(app: FastifyInstance, options: PipelineOptions): Promise<PipelinesFeature> {
  const { db, sqlDialect: dialect } = options.storage;
  const pipelines = new PipelineService(db, options.missingSecrets);
  const state = new StateService(db, dialect);
  const transitions = new Transitions(db, dialect, state, approvalNotifier(options.notifications), options.sessions, options.events, options.observers);
  const { pipelines: settings } = options.config;
  const sandboxes = options.sandboxes;
  const teardowns = new Teardowns();
  const gateway = new StateGateway(db, state, settings.stateGatewayPort, app.log);
  const worker = new PipelineWorker(
    db,
    transitions,
    state,
    buildStageExecutors(options, transitions, teardowns, gateway),
    {
      concurrency: settings.concurrency,
      leaseMs: settings.leaseSeconds * 1000,
      pollIntervalMs: settings.pollIntervalMs,
      onlyRunnableTypes: options.config.cluster.role !== 'all' || options.config.cluster.secret !== null,
    },
    app.log,
    sandboxes ? stageSandboxes(new SandboxDirectory(db), sandboxes) : null,
  );
  const runs = new RunService(db, pipelines, transitions, state, worker);
  await app.register(pipelineRoutes(pipelines));
  await app.register(runRoutes(runs));
  app.addHook('onReady', async () => {
    if (sandboxes) await gateway.start(options.bridgeAddress?.() ?? null);
    worker.start();
  });
  app.addHook('onClose', async () => {
    await worker.stop();
    await teardowns.settled();
    await gateway.stop();
  });
  return {
    pipelines,
    runs,
    state,
    worker,
    counts: new StageCensus(db),
    costOf: (runId) => runCostUsd(db, options.sessions, options.computeCostOf, runId),
    trustOf: (runId) => runTrust(db, options.sessions, runId),
  };
}
