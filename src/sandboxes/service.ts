// Sandbox rules: the plan's concurrency limit, creation (its request checked by create-input.ts) and
// set-up, exec, pause and resume, destroy and reconciliation after a restart. The runtime does the
// isolation work.
import type { Kysely } from 'kysely';
import type { AlertRaiser } from '../alerts/contract.js';
import type { Config, Plan } from '../config.js';
import { scopeReadsSecrets, type Principal, type Scope } from '../core/access.js';
import type { Dialect } from '../core/db/database.js';
import type { Database } from '../core/db/schema.js';
import { Conflict, Forbidden, Invalid, LimitExceeded, NotFound } from '../core/errors.js';
import { startMetering, stopMetering } from '../billing/metering/service.js';
import type { SandboxSpend, SpendCalculator } from '../billing/metering/spend.js';
import { newId } from '../core/ids.js';
import { nowIso } from '../core/time.js';
import { PLAN_LIMITS } from '../billing/plans.js';
import { RuntimeUnresponsive, SandboxNotFound, SandboxNotRunning, TemplateNotReady } from '../runtime/errors.js';
import { findTemplate, howToMakeReady, templateLowerDirs } from '../runtime/templates/index.js';
import type { ExecResult, SandboxRuntime, SandboxShape } from '../runtime/runtime.js';
import type { CreateSandboxInput, ExecInput } from './schemas.js';
import { DEFAULT_CPUS, DEFAULT_DISK_GB, DEFAULT_MEMORY_MB, effectiveAllowlist, effectiveSizing, validateCombination } from './create-input.js';
import type { SandboxEndings } from './endings.js';
import { maskSecretValues } from '../secrets/mask.js';
import { SandboxLocks } from './sandbox-locks.js';
import { setupSteps } from './setup-steps.js';
import * as store from './store.js';
import { sandboxView } from './views.js';

export const EXEC_OUTPUT_CAP_BYTES = 1024 * 1024;
const DEFAULT_EXEC_TIMEOUT_SECONDS = 300;
const ERROR_TAIL_CHARS = 2000;
/** What narrower scopes see in place of a confidential sandbox's env values. */
export const HIDDEN_VALUE = '***';

export interface ExecOutcome {
  output: string;
  exit_code: number;
  error?: string;
  stdout: string;
  stderr: string;
  truncated: boolean;
  timed_out: boolean;
  duration_ms: number;
}

/** A command the exec API ran (or tried to run) in a running sandbox. */
export interface ExecRecord {
  accountId: string;
  sandboxId: string;
  command: string;
  outcome: ExecOutcome;
}

export interface Logger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

function infrastructureFailure(error: string): ExecOutcome {
  return { output: '', exit_code: 1, error, stdout: '', stderr: '', truncated: false, timed_out: false, duration_ms: 0 };
}

function tail(text: string): string {
  return text.length > ERROR_TAIL_CHARS ? `…${text.slice(-ERROR_TAIL_CHARS)}` : text;
}

/** Decrypted values of the named account secrets; throws a 400 naming `field` for unknown names. */
export type SecretValues = (accountId: string, names: readonly string[], field?: string) => Promise<Record<string, string>>;

/** Hears of a pause right after it happened (the sandbox is frozen): the automatic snapshot. */
export type PauseListener = (row: store.SandboxRow) => Promise<PauseSnapshot>;
export interface PauseSnapshot {
  snapshot_id: string | null;
  /** Why no automatic snapshot was taken (a snapshot limit), when none was. */
  snapshot_error?: string;
}

export type PauseReason = 'request' | 'idle_timeout';

export class SandboxService {
  /** Set-up work running in the background, so shutdown and tests can wait for it. */
  private readonly pending = new Set<Promise<void>>();
  private readonly destroyListeners: ((id: string) => void)[] = [];
  private readonly meteringListeners: ((row: store.SandboxRow) => void)[] = [];
  private readonly execListeners: ((record: ExecRecord) => Promise<void>)[] = [];
  private readonly pauseListeners: PauseListener[] = [];
  private secretValues: SecretValues = async (_accountId, names, field = 'body.secrets') => {
    if (names.length) throw new Invalid(field, 'cannot be used: this server has no secrets store');
    return {};
  };
  /** Serializes pause, resume, snapshot copies and restores per sandbox. */
  readonly locks = new SandboxLocks();
  /** Secret values each sandbox was started with, to mask them even after the secret changes or goes. */
  private readonly injectedSecrets = new Map<string, string[]>();
  /** Sandboxes being torn down: their processes go away on purpose, which the crash check must not report. */
  private readonly ending = new Set<string>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
    private readonly runtime: SandboxRuntime,
    private readonly config: Config,
    private readonly log: Logger,
    private readonly alerts: AlertRaiser,
    private readonly spend: SpendCalculator,
    private readonly endings: SandboxEndings,
  ) {}

  /** The server whose runtime holds the sandboxes this service creates (PADDOCK_HOST_ID). */
  get hostId(): string {
    return this.config.hostId;
  }

  private get outboundPolicy() {
    return { allowPrivate: this.config.allowPrivateWebhooks, allowHttp: this.config.allowHttpWebhooks };
  }

  /**
   * `confidential`: the creator (a pipeline stage, an eval run) puts data in the sandbox that only a
   * scope reading secrets may see, so narrower keys must not reach inside it.
   */
  async create(principal: Principal, input: CreateSandboxInput, options: { confidential?: boolean } = {}) {
    if (input.secrets?.length && !scopeReadsSecrets(principal.scope)) {
      throw new Forbidden(`body.secrets needs a full-scope key: a ${principal.scope}-scope key cannot name account secrets, since any program in the sandbox can print their values`, 'scope_denied');
    }
    validateCombination(input, this.outboundPolicy);
    await this.requireReadyTemplate(input.template);
    const secretEnv = await this.secretValues(principal.accountId, input.secrets ?? []);
    const sizing = effectiveSizing(input);
    const shape: SandboxShape = {
      template: input.template,
      cpus: sizing.cpus,
      memoryMb: sizing.memoryMb,
      diskGb: input.disk_gb ?? DEFAULT_DISK_GB,
      networkMode: input.network_mode ?? 'full',
      allowlist: effectiveAllowlist(input),
    };
    // A pre-started sandbox that fits keeps its id (generated when the pool started it, so it sorts a little earlier).
    const warmId = this.runtime.reserveWarm?.(shape) ?? null;
    const now = nowIso();
    const row: store.SandboxRow = {
      id: warmId ?? newId('sbx'),
      account_id: principal.accountId,
      status: 'creating',
      error: null,
      runtime: this.runtime.name,
      template: input.template,
      cpus: sizing.cpus,
      memory_mb: sizing.memoryMb,
      disk_gb: shape.diskGb,
      network_mode: shape.networkMode,
      allowlist: JSON.stringify(input.allowlist ?? []),
      env: JSON.stringify(input.env ?? {}),
      ip: null,
      repo: input.repo ?? null,
      repo_branch: input.repo_branch ?? null,
      repo_commit: input.repo_commit ?? null,
      repo_subdir: input.repo_subdir ?? null,
      budget: input.budget ?? null,
      init_script: input.init_script ?? null,
      timeout: input.timeout ?? null,
      packages: JSON.stringify(input.packages ?? []),
      agents: JSON.stringify(input.agents ?? []),
      created_at: now,
      updated_at: now,
      last_activity_at: now,
      destroyed_at: null,
      on_complete: input.on_complete ?? null,
      on_budget_exceeded: input.on_budget_exceeded ?? null,
      destroyed_reason: null,
      budget_alerts_raised: 0,
      completed_at: null,
      host_id: this.config.hostId,
      secrets: JSON.stringify(input.secrets ?? []),
      paused_at: null,
      confidential: options.confidential || input.secrets?.length ? 1 : 0,
    };
    try {
      await this.insertWithinPlan(principal.plan, row);
    } catch (error) {
      if (warmId) this.runtime.releaseWarm?.(warmId);
      throw error;
    }

    try {
      const info = await this.runtime.create({ id: row.id, ...shape, env: { ...input.env, ...secretEnv } });
      row.ip = info.ip;
      // Charged from the moment its processes run, set-up included.
      await startMetering(this.db, row, nowIso());
      for (const listener of this.meteringListeners) listener(row);
      if (Object.keys(secretEnv).length) this.injectedSecrets.set(row.id, Object.values(secretEnv));
    } catch (error) {
      await this.enterError(row.id, ['creating'], (error as Error).message);
      if (error instanceof TemplateNotReady) throw new Invalid('body.template', `${error.template} is not ready on this server: ${error.howToFix}`);
      throw error;
    }

    const steps = setupSteps(input, this.config.agentCatalog);
    row.status = steps.length ? 'creating' : 'running';
    row.updated_at = nowIso();
    await store.transitionSandbox(this.db, row.id, ['creating'], { status: row.status, ip: row.ip, updated_at: row.updated_at });
    if (steps.length) this.track(this.runSetup(row.id, steps));
    return row;
  }

  private async requireReadyTemplate(name: string): Promise<void> {
    const template = findTemplate(name);
    if (template && !(await templateLowerDirs(this.config.dataDir, name))) {
      throw new Invalid('body.template', `${name} is not ready on this server: ${howToMakeReady(template)}`);
    }
  }

  private async insertWithinPlan(plan: Plan, row: store.SandboxRow): Promise<void> {
    const limit = PLAN_LIMITS[plan].concurrentSandboxes;
    await this.db.transaction().execute(async (trx) => {
      await store.lockAccount(trx, row.account_id, this.dialect);
      if (limit !== null && (await store.countLiveSandboxes(trx, row.account_id)) >= limit) {
        throw new LimitExceeded(`the ${plan} plan allows ${limit} concurrent sandboxes; destroy one or upgrade your plan`, 'plan_limit');
      }
      await store.insertSandbox(trx, row);
    });
  }

  private track(work: Promise<void>): void {
    this.pending.add(work);
    work.finally(() => this.pending.delete(work));
  }

  /** Resolves when every background set-up has finished. */
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  private async runSetup(id: string, steps: ReturnType<typeof setupSteps>): Promise<void> {
    for (const step of steps) {
      let result: ExecResult;
      try {
        result = await this.runtime.exec(id, { command: step.command, env: step.env, timeoutMs: step.timeoutMs, maxOutputBytes: 64 * 1024 });
      } catch (error) {
        await this.failSetup(id, `${step.name} could not run: ${(error as Error).message}`);
        return;
      }
      if (result.exitCode !== 0) {
        const output = (result.stderr.length ? result.stderr : result.stdout).toString('utf8').trim();
        const why = result.timedOut ? 'timed out' : `exited with ${result.exitCode}`;
        await this.failSetup(id, `${step.name} ${why}${output ? `: ${tail(output)}` : ''}`);
        return;
      }
    }
    await store.transitionSandbox(this.db, id, ['creating'], { status: 'running', updated_at: nowIso() });
  }

  private async failSetup(id: string, message: string): Promise<void> {
    // The message ends with the step's output, which may print a secret: masked before it is stored,
    // logged, alerted or sent in the completion callback.
    const masked = maskSecretValues(message, this.injectedSecrets.get(id) ?? []);
    this.log.warn({ sandbox_id: id, reason: masked }, 'sandbox set-up failed');
    await this.enterError(id, ['creating'], masked);
  }

  /** Moves a sandbox from one of `from` to `error` and raises `sandbox_error` in the same transaction. */
  private async enterError(id: string, from: readonly string[], error: string): Promise<boolean> {
    const now = nowIso();
    const failed = await this.db.transaction().execute(async (trx) => {
      const accountId = await store.failSandbox(trx, id, from, error, now);
      if (!accountId) return false;
      await stopMetering(trx, id, now);
      await this.alerts.raise(
        { accountId, type: 'sandbox_error', resource: { kind: 'sandbox', id }, sandboxId: id, message: `Sandbox ${id} entered the error state: ${error}`, details: { error } },
        { db: trx },
      );
      await this.endings.complete(trx, id, 'error', now);
      return true;
    });
    if (failed) this.endings.wake();
    return failed;
  }

  async get(accountId: string, id: string): Promise<store.SandboxRow> {
    const row = await store.findSandbox(this.db, accountId, id);
    if (!row) throw new NotFound('sandbox');
    return row;
  }

  async list(accountId: string, options: { limit: number; offset: number; includeDestroyed: boolean }) {
    return store.listSandboxes(this.db, accountId, options);
  }

  /** Budgets hear when a sandbox starts being charged, so a tiny budget is checked at once. */
  onMeteringStarted(listener: (row: store.SandboxRow) => void): void {
    this.meteringListeners.push(listener);
  }

  /** Features holding live connections into sandboxes (terminals) close them before a sandbox goes. */
  onDestroy(listener: (id: string) => void): void {
    this.destroyListeners.push(listener);
  }

  async destroy(accountId: string, id: string): Promise<void> {
    const row = await this.get(accountId, id);
    if (row.status === 'destroyed') return;
    await this.end(row, 'deleted');
  }

  /**
   * The budget sweeper's destroy: raises `budget_exceeded` and queues `on_budget_exceeded` with the
   * destroy. False when the sandbox was already destroyed.
   */
  async destroyOverBudget(accountId: string, id: string): Promise<boolean> {
    const row = await store.findSandbox(this.db, accountId, id);
    if (!row || row.status === 'destroyed') return false;
    return this.end(row, 'budget_exceeded');
  }

  private async end(row: store.SandboxRow, reason: 'deleted' | 'budget_exceeded'): Promise<boolean> {
    const { id } = row;
    for (const listener of this.destroyListeners) listener(id);
    // Charging stops when the decision is made: tearing down is not time the user can use.
    const decidedAt = nowIso();
    await stopMetering(this.db, id, decidedAt);
    this.ending.add(id);
    try {
      await this.runtime.destroy(id);
    } catch (error) {
      // Still running: keep charging, without a gap.
      if (row.status === 'running' || row.status === 'creating') await startMetering(this.db, row, decidedAt);
      this.ending.delete(id);
      throw error;
    }
    this.injectedSecrets.delete(id);
    const now = nowIso();
    const ended = await this.db.transaction().execute(async (trx) => {
      const moved = await store.transitionSandbox(trx, id, ['creating', 'running', 'paused', 'error'], { status: 'destroyed', destroyed_at: now, updated_at: now, destroyed_reason: reason });
      if (!moved) return false;
      if (reason === 'budget_exceeded') await this.endings.budgetExceeded(trx, row, decidedAt);
      await this.endings.complete(trx, id, reason, now);
      return true;
    });
    this.ending.delete(id);
    if (ended) this.endings.wake();
    return ended;
  }

  /** Features that record commands (sessions) hear of every exec before its answer goes out. */
  onExec(listener: (record: ExecRecord) => Promise<void>): void {
    this.execListeners.push(listener);
  }

  /** `signal` (for callers inside the server, such as eval runs) kills the command when it aborts. */
  async exec(accountId: string, id: string, input: ExecInput, stream?: { onStdout(chunk: Buffer): void; onStderr(chunk: Buffer): void }, signal?: AbortSignal): Promise<ExecOutcome> {
    const row = await this.get(accountId, id);
    if (row.status !== 'running') return infrastructureFailure(notRunningMessage(row));
    await this.recordActivity(id);
    const outcome = await this.runExec(id, input, stream, signal);
    const recorded = this.execListeners.length ? await this.maskedForRecording(row, outcome) : outcome;
    for (const listener of this.execListeners) {
      try {
        await listener({ accountId, sandboxId: id, command: input.command, outcome: recorded });
      } catch (error) {
        this.log.error({ err: error, sandbox_id: id }, 'recording an exec failed');
      }
    }
    return outcome;
  }

  private async runExec(id: string, input: ExecInput, stream?: { onStdout(chunk: Buffer): void; onStderr(chunk: Buffer): void }, signal?: AbortSignal): Promise<ExecOutcome> {
    let result: ExecResult;
    try {
      result = await this.runtime.exec(id, {
        command: input.command,
        env: input.env,
        cwd: input.cwd,
        timeoutMs: (input.timeout ?? DEFAULT_EXEC_TIMEOUT_SECONDS) * 1000,
        maxOutputBytes: EXEC_OUTPUT_CAP_BYTES,
        onStdout: stream?.onStdout,
        onStderr: stream?.onStderr,
        signal,
      });
    } catch (error) {
      if (error instanceof SandboxNotRunning || error instanceof SandboxNotFound) {
        if (error instanceof SandboxNotFound || error.state === 'stopped') await this.markLost(id, error.message);
        return infrastructureFailure(error.message);
      }
      this.log.error({ err: error, sandbox_id: id }, 'exec failed');
      return infrastructureFailure('the sandbox could not run the command');
    }
    const stdout = result.stdout.toString('utf8');
    const stderr = result.stderr.toString('utf8');
    return {
      output: result.exitCode === 0 ? stdout : stderr.length ? stderr : stdout,
      exit_code: result.exitCode,
      stdout,
      stderr,
      truncated: result.truncated,
      timed_out: result.timedOut,
      duration_ms: Math.round(result.durationMs),
    };
  }

  /** Runs a command for another part of the API (files, git) with the same not-running rules as exec. */
  async runInternal(accountId: string, id: string, request: { command: string; stdin?: Buffer; maxOutputBytes: number; timeoutMs?: number }) {
    const row = await this.get(accountId, id);
    if (row.status !== 'running') throw new SandboxUnavailable(notRunningMessage(row));
    await this.recordActivity(id);
    try {
      return await this.runtime.exec(id, { command: request.command, stdin: request.stdin, timeoutMs: request.timeoutMs ?? 60_000, maxOutputBytes: request.maxOutputBytes });
    } catch (error) {
      if (error instanceof SandboxNotRunning || error instanceof SandboxNotFound) throw new SandboxUnavailable(error.message);
      throw error;
    }
  }

  /** Runs a pipeline stage's command: streamed output, stopped by `signal` (the stage's timeout or a cancel). */
  async runForStage(accountId: string, id: string, request: { command: string; env: Record<string, string>; maxOutputBytes: number; signal: AbortSignal; onStdout(chunk: Buffer): void; onStderr(chunk: Buffer): void }) {
    const row = await this.get(accountId, id);
    if (row.status !== 'running') throw new SandboxUnavailable(row.status);
    await this.recordActivity(id);
    // The stage's own timeout (through `signal`) bounds the command; this is only a backstop.
    return this.runtime.exec(id, { ...request, timeoutMs: 24 * 3_600_000 });
  }

  async recordActivity(id: string): Promise<void> {
    await store.updateSandbox(this.db, id, { last_activity_at: nowIso() });
  }

  private async markLost(id: string, why: string): Promise<void> {
    await this.enterError(id, ['running', 'creating'], `sandbox stopped unexpectedly: ${why}`);
  }

  /** After a restart: keep live sandboxes, mark dead ones `error`, let the runtime clean leftovers. */
  async reconcile(): Promise<void> {
    await store.adoptUnhostedSandboxes(this.db, this.config.hostId);
    const known = await store.sandboxesInStatus(this.db, this.config.hostId, store.LIVE_STATUSES);
    const result = await this.runtime.reconcile(known.map((row) => row.id));
    for (const id of result.dead) {
      await this.enterError(id, store.LIVE_STATUSES, 'sandbox processes were gone after a server restart');
    }
    // Set-up cannot resume after a restart: a sandbox still creating is left in error.
    for (const row of known.filter((r) => r.status === 'creating' && !result.dead.includes(r.id))) {
      await this.enterError(row.id, ['creating'], 'the server restarted during set-up');
    }
    // Nor can a restore: its filesystem may be half swapped.
    for (const row of known.filter((r) => r.status === 'restoring' && !result.dead.includes(r.id))) {
      await this.enterError(row.id, ['restoring'], 'the server restarted while a snapshot was being restored');
    }
    // A running sandbox is metered even if the server stopped between closing its interval and
    // destroying it (a no-op for the usual open interval).
    const now = nowIso();
    for (const row of known.filter((r) => r.status === 'running' && result.alive.includes(r.id))) await startMetering(this.db, row, now);
    this.log.info({ alive: result.alive.length, dead: result.dead.length, cleaned: result.cleaned.length }, 'sandboxes reconciled');
  }

  /** Keeps PADDOCK_WARM_POOL's sandboxes ready; after `reconcile`, which would remove them as unknown. */
  startWarmPool(): void {
    this.runtime.startWarmPool?.({
      targets: this.config.warmPool,
      base: { cpus: DEFAULT_CPUS, memoryMb: DEFAULT_MEMORY_MB, diskGb: DEFAULT_DISK_GB, networkMode: 'full', allowlist: [] },
      newId: () => newId('sbx'),
      log: this.log,
    });
  }

  /** The secrets store, when the server has one (app.ts wires it). */
  useSecretValues(values: SecretValues): void {
    this.secretValues = values;
  }

  /** Snapshots hook in here to take the automatic snapshot of a pause. */
  onPause(listener: PauseListener): void {
    this.pauseListeners.push(listener);
  }

  /**
   * running → paused: every process frozen, no CPU (and so no compute charge), then the automatic snapshot.
   * Pausing a paused sandbox changes nothing. The status change is the moment compute stops.
   */
  async pause(accountId: string, id: string, reason: PauseReason = 'request'): Promise<{ row: store.SandboxRow; snapshot: PauseSnapshot | null }> {
    return this.locks.run(id, async () => {
      const row = await this.get(accountId, id);
      if (row.status === 'paused') return { row, snapshot: null };
      if (row.status !== 'running') throw new Conflict(`sandbox is ${row.status}; only a running sandbox can be paused`, 'sandbox_not_running');
      try {
        await this.runtime.pause(id);
      } catch (error) {
        await this.failIfGone(id, error);
        throw error;
      }
      const now = nowIso();
      // The sandbox stops using compute here: its interval closes with the status change.
      const paused = await this.db.transaction().execute(async (trx) => {
        const moved = await store.transitionSandbox(trx, id, ['running'], { status: 'paused', paused_at: now, updated_at: now });
        if (moved) await stopMetering(trx, id, now);
        if (moved && reason === 'idle_timeout') {
          await this.alerts.raise(
            { accountId, type: 'idle_timeout', resource: { kind: 'sandbox', id }, sandboxId: id, message: `Sandbox ${id} was paused after ${row.timeout} s without activity`, details: { timeout: row.timeout, last_activity_at: row.last_activity_at } },
            { db: trx },
          );
        }
        return moved;
      });
      if (!paused) {
        // Destroyed or failed meanwhile: leave it as the other change left it.
        await this.runtime.resume(id).catch(() => {});
        throw new Conflict('sandbox changed state while being paused; try again', 'sandbox_not_running');
      }
      const pausedRow = { ...row, status: 'paused', paused_at: now, updated_at: now };
      let snapshot: PauseSnapshot = { snapshot_id: null };
      for (const listener of this.pauseListeners) {
        try {
          snapshot = await listener(pausedRow);
        } catch (error) {
          // The pause itself happened; only its snapshot is missing, and the answer says so.
          this.log.error({ err: error, sandbox_id: id }, 'automatic pause snapshot could not start');
          snapshot = { snapshot_id: null, snapshot_error: 'the automatic snapshot could not be taken' };
        }
      }
      return { row: pausedRow, snapshot };
    });
  }

  /** paused → running. Resuming a running sandbox changes nothing. Waits for the automatic snapshot's copy. */
  async resume(accountId: string, id: string): Promise<store.SandboxRow> {
    return this.locks.run(id, async () => {
      const row = await this.get(accountId, id);
      if (row.status === 'running') return row;
      if (row.status !== 'paused') throw new Conflict(`sandbox is ${row.status}; only a paused sandbox can be resumed`, 'sandbox_not_paused');
      try {
        await this.runtime.resume(id);
      } catch (error) {
        await this.failIfGone(id, error);
        throw error;
      }
      const now = nowIso();
      // A fresh activity time, or the idle timeout would pause it at once. Compute is charged again from here.
      const resumed = { ...row, status: 'running', paused_at: null, updated_at: now, last_activity_at: now };
      await this.db.transaction().execute(async (trx) => {
        if (await store.transitionSandbox(trx, id, ['paused'], { status: 'running', paused_at: null, updated_at: now, last_activity_at: now })) {
          await startMetering(trx, resumed, now);
        }
      });
      for (const listener of this.meteringListeners) listener(resumed);
      return resumed;
    });
  }

  /** Running sandboxes with a `timeout` that have seen no activity for that long: paused, with an `idle_timeout` alert. */
  async pauseIdle(now = Date.now()): Promise<string[]> {
    const paused: string[] = [];
    for (const row of await store.idleCandidates(this.db, this.config.hostId)) {
      if (row.timeout === null || Date.parse(row.last_activity_at) + row.timeout * 1000 > now || this.locks.busy(row.id)) continue;
      try {
        await this.pause(row.account_id, row.id, 'idle_timeout');
        paused.push(row.id);
      } catch (error) {
        this.log.warn({ err: error, sandbox_id: row.id }, 'could not pause an idle sandbox');
      }
    }
    return paused;
  }

  /** Running and paused sandboxes whose processes are gone (crashed, killed, OOM): `error` with `sandbox_error`. */
  async failCrashed(): Promise<string[]> {
    const failed: string[] = [];
    for (const row of await store.sandboxesInStatus(this.db, this.config.hostId, ['running', 'paused'])) {
      if (this.locks.busy(row.id) || this.ending.has(row.id)) continue;
      // Under the sandbox's lock: a checkpoint or restore in progress has no process for a moment.
      const crashed = await this.locks.run(row.id, async () => {
        const stateNow = () => this.runtime.state(row.id).catch((error) => (error instanceof RuntimeUnresponsive ? ('unresponsive' as const) : ('stopped' as const)));
        const first = await stateNow();
        if (first === 'running' || first === 'paused') return false;
        // The runtime's state command can fail for a moment while the container changes state; ask twice.
        await new Promise((resolve) => setTimeout(resolve, 250));
        const state = await stateNow();
        if (state === 'running' || state === 'paused' || this.ending.has(row.id)) return false;
        const reason = state === 'unresponsive' ? 'the runtime stopped answering for it (its control channel is wedged)' : 'its processes exited (crashed or killed)';
        return this.enterError(row.id, ['running', 'paused'], `sandbox stopped unexpectedly: ${reason}`);
      });
      if (crashed) failed.push(row.id);
    }
    return failed;
  }

  private async failIfGone(id: string, error: unknown): Promise<void> {
    if (error instanceof SandboxNotFound || (await this.runtime.state(id).catch(() => 'stopped')) === 'stopped') {
      await this.markLost(id, (error as Error).message);
    }
  }

  /** Whether only scopes that read secrets may reach inside the account's sandbox (false when there is none). */
  async isConfidential(accountId: string, id: string): Promise<boolean> {
    return (await store.findSandbox(this.db, accountId, id))?.confidential === 1;
  }

  /**
   * Marks a sandbox `restoring` for the duration of `work` (exec and files answer that it is busy).
   * `confidentialSource`: the files come from a confidential sandbox, so this one becomes confidential
   * before any of them is in place.
   */
  async whileRestoring<T>(accountId: string, id: string, work: (row: store.SandboxRow) => Promise<T>, confidentialSource = false): Promise<T> {
    return this.locks.run(id, async () => {
      const row = await this.get(accountId, id);
      if (confidentialSource && row.confidential !== 1) await store.updateSandbox(this.db, id, { confidential: 1 });
      if (row.status !== 'running') throw new Conflict(`sandbox is ${row.status}; a snapshot restores only into a running sandbox${row.status === 'paused' ? ' (resume it first)' : ''}`, 'sandbox_not_running');
      if (!(await store.transitionSandbox(this.db, id, ['running'], { status: 'restoring', updated_at: nowIso() }))) {
        throw new Conflict('sandbox changed state; try again', 'sandbox_not_running');
      }
      try {
        const result = await work(row);
        const now = nowIso();
        await store.transitionSandbox(this.db, id, ['restoring'], { status: 'running', updated_at: now, last_activity_at: now });
        return result;
      } catch (error) {
        await this.enterError(id, ['restoring'], `restoring a snapshot failed: ${(error as Error).message}`);
        throw error;
      }
    });
  }

  private async maskedForRecording(row: store.SandboxRow, outcome: ExecOutcome): Promise<ExecOutcome> {
    const names = JSON.parse(row.secrets) as string[];
    if (!names.length) return outcome;
    // After a restart the values come from the store again (a secret deleted meanwhile cannot be masked).
    const stored = await Promise.all(names.map((name) => this.secretValues(row.account_id, [name]).catch(() => ({}))));
    const values = [...(this.injectedSecrets.get(row.id) ?? []), ...stored.flatMap((entry) => Object.values(entry))];
    const mask = (text: string) => maskSecretValues(text, values);
    return { ...outcome, output: mask(outcome.output), stdout: mask(outcome.stdout), stderr: mask(outcome.stderr), ...(outcome.error ? { error: mask(outcome.error) } : {}) };
  }

  /**
   * The sandbox as GET answers it, with what it has spent so far. A confidential sandbox's env (a
   * pipeline's env and run token, for stage sandboxes) is shown to narrower scopes as names only.
   */
  async detail(row: store.SandboxRow, scope: Scope) {
    const full = sandboxView(row, await this.spend.ofOne(row.id));
    if (scopeReadsSecrets(scope)) return full;
    // A callback URL often is a credential (a chat webhook's path, a token in the query): narrower keys see where it goes.
    const view = { ...full, on_complete: callbackOrigin(full.on_complete), on_budget_exceeded: callbackOrigin(full.on_budget_exceeded) };
    if (row.confidential !== 1) return view;
    return {
      ...view,
      env: Object.fromEntries(Object.keys(view.env).map((name) => [name, HIDDEN_VALUE])),
      // A failed set-up step's message ends with its output; narrower keys get the step and outcome only.
      error: view.error === null ? null : `${view.error.split(': ')[0]} (details withheld from a ${scope}-scope key: the sandbox is confidential)`,
    };
  }

  async spendOf(id: string): Promise<SandboxSpend> {
    return this.spend.ofOne(id);
  }
}

/** `https://hooks.example.com/***` for a callback URL, shown to keys that may not read secrets. */
function callbackOrigin(url: string | null): string | null {
  if (url === null) return null;
  try {
    return `${new URL(url).origin}/${HIDDEN_VALUE}`;
  } catch {
    return HIDDEN_VALUE;
  }
}

/** What exec, files and git answer for a sandbox that is not running. */
export function notRunningMessage(row: store.SandboxRow): string {
  switch (row.status) {
    case 'creating':
      return 'sandbox is creating (set-up is still running)';
    case 'paused':
      return `sandbox is paused; resume it with POST /v1/sandboxes/${row.id}/resume`;
    case 'restoring':
      return 'sandbox is restoring a snapshot; try again in a moment';
    default:
      return `sandbox is ${row.status}`;
  }
}

export class SandboxUnavailable extends Error {
  constructor(readonly why: string) {
    super(why.startsWith('sandbox') ? why : `sandbox is ${why}`);
  }
}
