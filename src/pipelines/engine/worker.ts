// One process's stage worker: leases ready stages (up to the configured concurrency), runs each attempt
// through the executor of its type with a timeout, renews its leases while they run, and records each
// outcome through Transitions. Several processes on one PostgreSQL share the work through the leases.
import type { Kysely } from 'kysely';
import type { Database } from '../../core/db/schema.js';
import { newId } from '../../core/ids.js';
import type { StateService } from '../state/service.js';
import { STAGE_TYPES, type StageContext, type StageOutcome, type StageType } from '../stages/contract.js';
import { executorFor, type StageExecutors } from '../stages/registry.js';
import { effectiveStage } from './dag.js';
import type { ClaimedAttempt, Transitions } from './transitions.js';
import type { Logger } from '../../core/logging.js';

const LOG_CAP_CHARS = 1024 * 1024;
const HOUSEKEEPING_INTERVAL_MS = 1000;
/** Template of stages that name none, directly or through defaults: git, curl and a compiler. */
export const DEFAULT_TEMPLATE = 'minimal';

export interface WorkerOptions {
  concurrency: number;
  leaseMs: number;
  pollIntervalMs: number;
  /**
   * In a cluster, claim only the stage types this node has an executor for, so an api node (no
   * runtime) leaves command stages to the workers. Alone, a server claims every stage and fails those
   * it cannot run with a clear error rather than leaving them pending forever.
   */
  onlyRunnableTypes?: boolean;
}

interface RunningAttempt {
  claimed: ClaimedAttempt;
  controller: AbortController;
  logs: { stdout: string; stderr: string };
  logsDirty: boolean;
  done: Promise<void>;
}

/** The sandboxes stage attempts create, as the worker cleans up after lost attempts (the sandboxes feature answers). */
export interface StageSandboxes {
  /** Sandboxes of any account not destroyed yet. */
  notDestroyed(): Promise<{ id: string; accountId: string }[]>;
  destroy(accountId: string, sandboxId: string): Promise<void>;
}

/** Ids per `in (…)` list: well under SQLite's bound parameter limit. */
const IDS_PER_QUERY = 500;

export class PipelineWorker {
  readonly id = newId('wrk');
  private readonly running = new Map<string, RunningAttempt>();
  private timers: NodeJS.Timeout[] = [];
  private ticking = false;
  private tickAgain = false;
  private stopped = true;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly transitions: Transitions,
    private readonly state: StateService,
    private readonly executors: StageExecutors,
    private readonly options: WorkerOptions,
    private readonly log: Logger,
    /** Destroys sandboxes left by lost attempts (another worker's, or this server's before a restart); null without a runtime. */
    private readonly sandboxes: StageSandboxes | null,
  ) {}

  start(): void {
    this.stopped = false;
    void this.destroyLeftoverSandboxes();
    this.timers = [
      setInterval(() => this.wake(), this.options.pollIntervalMs),
      setInterval(() => void this.heartbeat(), Math.max(500, Math.floor(this.options.leaseMs / 3))),
      setInterval(() => void this.housekeeping(), HOUSEKEEPING_INTERVAL_MS),
    ];
    this.wake();
  }

  /** Stops taking work and stops running attempts; their stages are handed back for another attempt. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    for (const attempt of this.running.values()) attempt.controller.abort('server shutting down');
    await Promise.allSettled([...this.running.values()].map((attempt) => attempt.done));
  }

  /** Looks for work now (after a run starts, a stage ends, an approval arrives). */
  wake(): void {
    if (this.stopped) return;
    if (this.ticking) {
      this.tickAgain = true;
      return;
    }
    this.ticking = true;
    void this.tick().finally(() => {
      this.ticking = false;
      if (this.tickAgain) {
        this.tickAgain = false;
        this.wake();
      }
    });
  }

  /** Stops this process's attempts of a canceled run at once (other workers notice at their heartbeat). */
  abortRun(runId: string): void {
    for (const attempt of this.running.values()) if (attempt.claimed.run.id === runId) attempt.controller.abort('the run was canceled');
  }

  private async tick(): Promise<void> {
    const free = this.options.concurrency - this.running.size;
    if (free <= 0) return;
    let claimed: ClaimedAttempt[];
    try {
      claimed = await this.transitions.claim(this.id, free, this.options.leaseMs, this.claimableTypes());
    } catch (error) {
      this.log.error({ err: error }, 'claiming pipeline stages failed');
      return;
    }
    for (const attempt of claimed) this.execute(attempt);
    if (claimed.length === free) this.tickAgain = true;
  }

  /** null: every type. `await_approval` is always claimable: the engine pauses the run itself, no executor runs. */
  private claimableTypes(): StageType[] | null {
    if (!this.options.onlyRunnableTypes) return null;
    return STAGE_TYPES.filter((type) => type === 'await_approval' || this.executors[type] !== undefined);
  }

  private execute(claimed: ClaimedAttempt): void {
    const controller = new AbortController();
    const entry: RunningAttempt = { claimed, controller, logs: { stdout: '', stderr: '' }, logsDirty: false, done: Promise.resolve() };
    this.running.set(claimed.stage.id, entry);
    entry.done = this.runAttempt(entry).finally(() => {
      this.running.delete(claimed.stage.id);
      this.wake();
    });
  }

  private async runAttempt(entry: RunningAttempt): Promise<void> {
    const { claimed, controller } = entry;
    const { run, stage, definition, pipeline } = claimed;
    for (const sandboxId of claimed.orphanSandboxes) await this.sandboxes?.destroy(run.account_id, sandboxId).catch(() => {});
    const settings = effectiveStage(definition, pipeline.defaults);
    const timer = setTimeout(() => controller.abort(`timed out after ${definition.timeout ?? pipeline.defaults.timeout ?? '10m'}`), settings.timeoutMs);
    const input = JSON.parse(run.input) as { env?: Record<string, string>; repo?: string; branch?: string; template?: string };
    const context: StageContext = {
      accountId: run.account_id,
      pipelineId: run.pipeline_id,
      runId: run.id,
      stageName: stage.name,
      attempt: stage.attempt,
      config: definition.type === 'command' ? { command: definition.command } : (definition.config ?? {}),
      // A run's `template` (an agent's, for its tasks) replaces the pipeline's default, not a stage's own.
      template: definition.template ?? input.template ?? settings.template ?? DEFAULT_TEMPLATE,
      env: { ...input.env, ...definition.env },
      signal: controller.signal,
      state: {
        get: async (key) =>
          this.state.get(run.id, key).then(
            (entry) => entry.value,
            () => null,
          ),
        put: async (key, value, options) => void (await this.state.put(run.id, key, { value, ...options }, stage.name)),
      },
      log: (stream, text) => {
        const current = entry.logs[stream];
        if (current.length >= LOG_CAP_CHARS) return;
        entry.logs[stream] = (current + text).slice(0, LOG_CAP_CHARS);
        entry.logsDirty = true;
      },
      sandboxCreated: (sandboxId) => this.transitions.recordSandbox(run.id, stage.id, stage.attempt, sandboxId),
      repo: input.repo ? { url: input.repo, branch: input.branch ?? null } : null,
    };
    let outcome: StageOutcome;
    try {
      outcome = await executorFor(this.executors, definition.type)(context);
    } catch (error) {
      outcome = { status: 'failed', error: `the stage executor failed: ${(error as Error).message}` };
    } finally {
      clearTimeout(timer);
    }
    if (controller.signal.aborted && outcome.status === 'succeeded') outcome = { ...outcome, status: 'failed', error: String(controller.signal.reason) };
    if (controller.signal.reason === 'server shutting down') {
      await this.transitions.release(this.id, claimed, entry.logs).catch((error) => this.log.error({ err: error }, 'handing back a stage failed'));
      return;
    }
    try {
      await this.transitions.completeAttempt(this.id, claimed, outcome, entry.logs);
    } catch (error) {
      // The lease is still held: the stage is attempted again once it expires.
      this.log.error({ err: error, run_id: run.id, stage: stage.name }, 'recording a stage outcome failed');
    }
  }

  /**
   * Stage sandboxes still alive although their attempt is over: their teardown was cut short by a
   * crash. Attempts still running belong to a live worker (or are reclaimed with their sandboxes).
   */
  private async destroyLeftoverSandboxes(): Promise<void> {
    if (!this.sandboxes) return;
    try {
      const alive = await this.sandboxes.notDestroyed();
      const accounts = new Map(alive.map((sandbox) => [sandbox.id, sandbox.accountId]));
      const ids = [...accounts.keys()];
      for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
        const leftovers = await this.db
          .selectFrom('pipeline_run_sandboxes as p')
          .innerJoin('pipeline_stage_attempts as a', (join) => join.onRef('a.run_stage_id', '=', 'p.run_stage_id').onRef('a.attempt', '=', 'p.attempt'))
          .select('p.sandbox_id')
          .where('p.sandbox_id', 'in', ids.slice(i, i + IDS_PER_QUERY))
          .where('a.status', '!=', 'running')
          .execute();
        for (const row of leftovers) await this.sandboxes.destroy(accounts.get(row.sandbox_id)!, row.sandbox_id).catch(() => {});
      }
    } catch (error) {
      this.log.error({ err: error }, 'destroying leftover stage sandboxes failed');
    }
  }

  private async heartbeat(): Promise<void> {
    const attempts = [...this.running.values()];
    if (attempts.length === 0) return;
    try {
      const lost = await this.transitions.heartbeat(
        this.id,
        attempts.map((a) => ({ stageId: a.claimed.stage.id, attempt: a.claimed.stage.attempt })),
        this.options.leaseMs,
      );
      for (const attempt of attempts) {
        if (lost.has(attempt.claimed.stage.id)) attempt.controller.abort('the stage was canceled or taken over');
        else if (attempt.logsDirty) {
          attempt.logsDirty = false;
          await this.transitions.saveLogs(attempt.claimed.stage.id, attempt.claimed.stage.attempt, attempt.logs);
        }
      }
    } catch (error) {
      this.log.error({ err: error }, 'renewing stage leases failed');
    }
  }

  private async housekeeping(): Promise<void> {
    try {
      for (const overdue of await this.transitions.overdueApprovals()) {
        await this.transitions.decide(overdue.runId, { decision: overdue.decision, by: 'sla_timeout', comment: 'sla_timeout expired; auto_decision applied' }).catch(() => {});
        this.wake();
      }
      await this.state.purgeExpired();
    } catch (error) {
      this.log.error({ err: error }, 'pipeline housekeeping failed');
    }
  }
}
