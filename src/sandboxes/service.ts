// The sandbox feature's face to routes and other features: create, read, exec, pause and resume,
// restore, destroy, reconcile. Each operation lives in its own file; status changes go through the
// lifecycle (lifecycle/), the only writer of sandbox status.
import type { NodeAdmission } from './node-admission.js';
import type { Kysely } from 'kysely';
import type { AlertRaiser } from '../alerts/contract.js';
import type { SandboxSpend, SpendCalculator } from '../billing/metering/spend.js';
import type { Config, Plan } from '../config.js';
import type { Principal, Scope } from '../core/access.js';
import type { Database } from '../core/db/schema.js';
import { NO_PUBLISHER, type EventPublisher } from '../core/events/published.js';
import type { ExecResult, SandboxRuntime } from '../runtime/runtime.js';
import { recordActivity, type PlanAdmission, type PlanLock, type SandboxContext } from './context.js';
import { createSandbox } from './create.js';
import { SandboxRecords, type SandboxReads } from './reads.js';
import type { SandboxEndings } from './endings.js';
import { execForApi, runCommand, type CommandRequest, type ExecOutcome } from './exec.js';
import { failCrashed, reconcileSandboxes } from './health.js';
import { failLostNode } from './lost-node.js';
import { InjectedSecrets, NO_SECRETS, type SecretValues } from './injected-secrets.js';
import type { SandboxEvent } from './lifecycle/contract.js';
import { SandboxLifecycle } from './lifecycle/lifecycle.js';
import type { Logger } from '../core/logging.js';
import { pauseAllRunning, pauseIdle, pauseSandbox, resumeSandbox, type PauseReason, type PauseSnapshot, type PauseSnapshots } from './pause.js';
import { whileRestoring } from './restore.js';
import { SandboxLocks } from './sandbox-locks.js';
import type { CreateSandboxInput, ExecInput } from './schemas.js';
import * as store from './store.js';
import { destroySandbox } from './teardown.js';
import { startWarmPool } from './warm-pool.js';

export type { ExecOutcome, Logger, PauseReason, PauseSnapshot, PauseSnapshots, SecretValues };
export type { SandboxRow } from './store.js';
export { EXEC_OUTPUT_CAP_BYTES } from './exec.js';
export { HIDDEN_VALUE } from './detail.js';
export { notRunningMessage, SandboxUnavailable } from './unavailable.js';

export interface SandboxServiceDeps {
  db: Kysely<Database>;
  runtime: SandboxRuntime;
  config: Config;
  log: Logger;
  alerts: AlertRaiser;
  spend: SpendCalculator;
  endings: SandboxEndings;
  /** The accounts feature: its lock for the concurrent-sandbox check. */
  accounts: PlanLock;
  /** Billing: the plan's concurrency and compute quota, checked by create and resume. */
  plans: PlanAdmission;
  /** The secrets store (account secrets named at creation); without one, naming a secret is a 400. */
  secretValues?: SecretValues;
  /** Receives every lifecycle event inside its transaction (webhook fan-out). */
  publisher?: EventPublisher;
  /** This node's own limit on live sandboxes (scale-out). */
  node?: NodeAdmission | null;
}

/** Reads (SandboxReads) go through `records`, as on a node without a runtime. */
export class SandboxService implements SandboxReads {
  /** The one writer of sandbox status; `lifecycle.subscribe(consumer)` registers in-process consumers. */
  readonly lifecycle: SandboxLifecycle;
  private readonly ctx: SandboxContext;
  private readonly spend: SpendCalculator;
  private readonly records: SandboxRecords;

  constructor(deps: SandboxServiceDeps) {
    this.lifecycle = new SandboxLifecycle({
      db: deps.db,
      alerts: deps.alerts,
      endings: deps.endings,
      publisher: deps.publisher ?? NO_PUBLISHER,
      log: deps.log,
      wakeOutbox: () => deps.endings.wake(),
    });
    this.ctx = {
      db: deps.db,
      runtime: deps.runtime,
      config: deps.config,
      log: deps.log,
      lifecycle: this.lifecycle,
      locks: new SandboxLocks(),
      secrets: new InjectedSecrets(deps.secretValues ?? NO_SECRETS),
      accounts: deps.accounts,
      plans: deps.plans,
      ending: new Set(),
      background: new Set(),
      node: deps.node ?? null,
    };
    this.spend = deps.spend;
    this.records = new SandboxRecords(deps.db, deps.spend, this.lifecycle);
  }

  /** The server whose runtime holds the sandboxes this service creates (PADDOCK_HOST_ID). */
  get hostId(): string {
    return this.ctx.config.hostId;
  }

  /** Serializes pause, resume, snapshot copies and restores per sandbox. */
  get locks(): SandboxLocks {
    return this.ctx.locks;
  }

  create(principal: Principal, input: CreateSandboxInput, options: { confidential?: boolean } = {}): Promise<store.SandboxRow> {
    return createSandbox(this.ctx, principal, input, options);
  }

  /** Resolves when every background set-up has finished. */
  async settled(): Promise<void> {
    while (this.ctx.background.size) await Promise.allSettled([...this.ctx.background]);
  }

  get(accountId: string, id: string): Promise<store.SandboxRow> {
    return this.records.get(accountId, id);
  }

  /** This server's live sandboxes that have a budget: what a budget sweep looks at. */
  budgeted(): Promise<store.SandboxRow[]> {
    return store.budgetedLiveSandboxes(this.ctx.db, this.hostId);
  }

  list(accountId: string, options: { limit: number; offset: number; includeDestroyed: boolean }): Promise<store.SandboxRow[]> {
    return this.records.list(accountId, options);
  }

  detail(row: store.SandboxRow, scope: Scope) {
    return this.records.detail(row, scope);
  }

  events(accountId: string, id: string, scope: Scope, page: { limit: number; offset: number }): Promise<SandboxEvent[]> {
    return this.records.events(accountId, id, scope, page);
  }

  async spendOf(id: string): Promise<SandboxSpend> {
    return this.spend.ofOne(id);
  }

  spendOfMany(ids: readonly string[]): Promise<Map<string, SandboxSpend>> {
    return this.records.spendOfMany(ids);
  }

  /** Whether only scopes that read secrets may reach inside the account's sandbox (false when there is none). */
  async isConfidential(accountId: string, id: string): Promise<boolean> {
    return (await store.findSandbox(this.ctx.db, accountId, id))?.confidential === 1;
  }

  async destroy(accountId: string, id: string): Promise<void> {
    const row = await this.get(accountId, id);
    if (row.status === 'destroyed') return;
    await destroySandbox(this.ctx, row, 'deleted');
  }

  /** The budget sweeper's destroy (`budget_exceeded` alert and callback with it). False when it was already destroyed. */
  async destroyOverBudget(accountId: string, id: string): Promise<boolean> {
    const row = await store.findSandbox(this.ctx.db, accountId, id);
    if (!row || row.status === 'destroyed') return false;
    return destroySandbox(this.ctx, row, 'budget_exceeded');
  }

  /** The exec API (and eval runs): always an answer; `signal` kills the command when it aborts. */
  exec(accountId: string, id: string, input: ExecInput, stream?: { onStdout(chunk: Buffer): void; onStderr(chunk: Buffer): void }, signal?: AbortSignal): Promise<ExecOutcome> {
    return execForApi(this.ctx, accountId, id, input, stream, signal);
  }

  /** Runs a command for another feature (files, git, pipeline stages); SandboxUnavailable when the sandbox is not running. */
  run(accountId: string, id: string, request: CommandRequest): Promise<ExecResult> {
    return runCommand(this.ctx, accountId, id, request);
  }

  recordActivity(id: string): Promise<void> {
    return recordActivity(this.ctx, id);
  }

  pause(accountId: string, id: string, reason: PauseReason, snapshots: PauseSnapshots | null) {
    return pauseSandbox(this.ctx, accountId, id, reason, snapshots);
  }

  /** Refused (403 plan_limit) while the account's compute quota is used up. */
  resume(accountId: string, id: string, plan: Plan): Promise<store.SandboxRow> {
    return resumeSandbox(this.ctx, accountId, id, plan);
  }

  /** The compute quota's pause: every running sandbox of the account on this server, never destroyed; how many were paused. */
  pauseAllRunning(accountId: string, snapshots: PauseSnapshots | null): Promise<number> {
    return pauseAllRunning(this.ctx, accountId, snapshots);
  }

  pauseIdle(snapshots: PauseSnapshots | null, now = Date.now()): Promise<string[]> {
    return pauseIdle(this.ctx, snapshots, now);
  }

  failCrashed(): Promise<string[]> {
    return failCrashed(this.ctx);
  }

  reconcile(): Promise<void> {
    return reconcileSandboxes(this.ctx);
  }

  /** The live sandboxes of node `hostId`, declared lost by this node's sweeper, go `error` (node_lost); how many did. */
  declareLost(hostId: string): Promise<number> {
    return failLostNode(this.ctx, hostId);
  }

  /** Keeps PADDOCK_WARM_POOL's sandboxes ready; after `reconcile`, which would remove them as unknown. */
  startWarmPool(): void {
    startWarmPool(this.ctx);
  }

  whileRestoring<T>(accountId: string, id: string, work: (row: store.SandboxRow) => Promise<T>, confidentialSource = false, data: Record<string, unknown> = {}): Promise<T> {
    return whileRestoring(this.ctx, accountId, id, work, confidentialSource, data);
  }
}
