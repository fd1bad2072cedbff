// Every change of a run or stage status, each in one transaction with the decision that caused it and
// the timeline event it emits (with what every transition does besides its own write: run-effects.ts).
// The worker (worker.ts) and the runs service call these; nothing else writes run or stage statuses.
import type { Kysely } from 'kysely';
import type { SqlDialect } from '../../core/db/dialect.js';
import type { Database } from '../../core/db/schema.js';
import { NO_PUBLISHER, type EventPublisher } from '../../core/events/published.js';
import { nowIso } from '../../core/time.js';
import { parseDurationMs } from '../definition/duration.js';
import { type PipelineDefinition, type StageDefinition, configOf } from '../definition/types.js';
import * as store from '../runs/store.js';
import type { StateService } from '../state/service.js';
import type { StageOutcome, StageType } from '../stages/contract.js';
import { effectiveStage, isTerminal, retryDelayMs } from './dag.js';
import type { Tx } from '../../core/db/handles.js';
import { inTransaction } from '../../core/db/after-commit.js';
import { decideApproval, findOverdueApprovals, type Decision } from './approval-decisions.js';
import { RunEffects, type RunSessions } from './run-effects.js';
import type { RunObserver } from './run-observer.js';
import { insertRun, type NewRun } from './run-creation.js';

export type { InitialStateEntry, NewRun } from './run-creation.js';

export type { RunSessions } from './run-effects.js';
export type { Decision } from './approval-decisions.js';

export interface ApprovalNotifier {
  /** Records the approval request notification inside `trx` (deliveries go through the outbox). */
  notify(trx: Tx, request: { accountId: string; run: store.RunRow; stage: StageDefinition; deadline: string | null }): Promise<void>;
}

export interface ClaimedAttempt {
  run: store.RunRow;
  stage: store.RunStageRow;
  definition: StageDefinition;
  pipeline: PipelineDefinition;
  /** Sandboxes of a lost earlier attempt, to destroy. */
  orphanSandboxes: string[];
}

export class Transitions {
  private readonly effects: RunEffects;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialect,
    private readonly state: StateService,
    private readonly notifier: ApprovalNotifier,
    private readonly sessions: RunSessions,
    /** Subscribers of the spec's pipeline events (webhooks), called in each transition's transaction. */
    events: EventPublisher = NO_PUBLISHER,
    /** Other features following runs (agent delegation's tasks), called in each transition's transaction. */
    observers: readonly RunObserver[] = [],
  ) {
    this.effects = new RunEffects(state, sessions, events, observers);
  }

  /**
   * Creates the run, its stage rows, its session, `initialState` entries and, when given, whatever
   * `inside` writes (another feature's row for the run), all in one transaction.
   */
  createRun(input: NewRun): Promise<store.RunRow> {
    return inTransaction(this.db, (trx) => insertRun(trx, this.effects, this.state, this.sessions, input));
  }

  /** What CEL sees for a run now (gates evaluate their expression with it). */
  async expressionScope(runId: string) {
    const run = (await this.db.selectFrom('pipeline_runs').selectAll().where('id', '=', runId).executeTakeFirst())!;
    return this.effects.scope(this.db, run, await store.stagesOf(this.db, runId));
  }

  /**
   * Leases up to `limit` stages to `workerId`: due pending stages and running stages whose lease ran
   * out (their worker died). `await_approval` stages pause the run here instead of being executed.
   */
  async claim(workerId: string, limit: number, leaseMs: number, types: StageType[] | null = null): Promise<ClaimedAttempt[]> {
    return inTransaction(this.db, async (trx) => {
      const now = new Date();
      const nowText = now.toISOString();
      const candidates = await store.claimable(trx, this.dialect, nowText, limit, types);
      const claimed: ClaimedAttempt[] = [];
      for (const stage of candidates) {
        const run = (await store.lockRun(trx, this.dialect, stage.run_id))!;
        const pipeline = await this.effects.definition(trx, run.pipeline_id, run.version);
        const definition = pipeline.stages.find((s) => s.name === stage.name)!;
        const reclaimed = stage.status === 'running';
        if (run.status === 'pending') {
          run.status = 'running';
          run.started_at = nowText;
          await store.updateRun(trx, run.id, { status: 'running', started_at: nowText, updated_at: nowText });
          await this.effects.emit(trx, run, 'pipeline.run.started', null, {}, nowText);
        }
        if (reclaimed) {
          await trx
            .updateTable('pipeline_stage_attempts')
            .set({ status: 'lost', error: `worker ${stage.lease_owner} stopped renewing its lease`, completed_at: nowText })
            .where('run_stage_id', '=', stage.id)
            .where('attempt', '=', stage.attempt)
            .execute();
          await this.effects.emit(trx, run, 'pipeline.stage.lease_expired', stage.name, { attempt: stage.attempt, worker_id: stage.lease_owner }, nowText);
        }
        if (stage.type === 'await_approval') {
          await this.pauseForApproval(trx, run, stage, definition, now);
          continue;
        }
        const attempt = stage.attempt + 1;
        const changes = {
          status: 'running' as const,
          attempt,
          lease_owner: workerId,
          lease_expires_at: new Date(now.getTime() + leaseMs).toISOString(),
          started_at: stage.started_at ?? nowText,
          next_attempt_at: null,
          updated_at: nowText,
        };
        await store.updateStage(trx, stage.id, changes);
        await trx
          .insertInto('pipeline_stage_attempts')
          .values({
            run_stage_id: stage.id,
            attempt,
            worker_id: workerId,
            status: 'running',
            exit_code: null,
            error: null,
            sandbox_id: null,
            stdout: '',
            stderr: '',
            started_at: nowText,
            completed_at: null,
          })
          .execute();
        await this.effects.emit(trx, run, 'pipeline.stage.started', stage.name, { attempt, type: stage.type, worker_id: workerId }, nowText);
        const orphanSandboxes = reclaimed
          ? (await trx.selectFrom('pipeline_run_sandboxes').select('sandbox_id').where('run_stage_id', '=', stage.id).where('attempt', '<', attempt).execute()).map((r) => r.sandbox_id)
          : [];
        claimed.push({ run, stage: { ...stage, ...changes }, definition, pipeline, orphanSandboxes });
      }
      return claimed;
    });
  }

  private async pauseForApproval(trx: Tx, run: store.RunRow, stage: store.RunStageRow, definition: StageDefinition, now: Date): Promise<void> {
    const nowText = now.toISOString();
    const approval = configOf(definition, 'await_approval');
    const sla = approval?.sla_timeout;
    const deadline = sla ? new Date(now.getTime() + parseDurationMs(sla)!).toISOString() : null;
    await store.updateStage(trx, stage.id, {
      status: 'paused_approval',
      attempt: stage.attempt + 1,
      started_at: stage.started_at ?? nowText,
      approval_deadline: deadline,
      next_attempt_at: null,
      lease_owner: null,
      lease_expires_at: null,
      updated_at: nowText,
    });
    run.status = 'paused';
    await store.updateRun(trx, run.id, { status: 'paused', updated_at: nowText });
    await this.effects.emit(
      trx,
      run,
      'pipeline.stage.paused_approval',
      stage.name,
      { message: approval?.message ?? null, channels: approval?.channels ?? ['dashboard'], approval_deadline: deadline },
      nowText,
    );
    await this.notifier.notify(trx, { accountId: run.account_id, run, stage: definition, deadline });
  }

  /** Extends the leases this worker still holds; returns the stage ids it no longer holds (canceled or taken over). */
  async heartbeat(workerId: string, attempts: { stageId: string; attempt: number }[], leaseMs: number): Promise<Set<string>> {
    const lost = new Set<string>();
    if (attempts.length === 0) return lost;
    const expires = new Date(Date.now() + leaseMs).toISOString();
    const ids = attempts.map((a) => a.stageId);
    await this.db.updateTable('pipeline_run_stages').set({ lease_expires_at: expires }).where('id', 'in', ids).where('lease_owner', '=', workerId).where('status', '=', 'running').execute();
    const held = await this.db.selectFrom('pipeline_run_stages').select(['id', 'attempt']).where('id', 'in', ids).where('lease_owner', '=', workerId).where('status', '=', 'running').execute();
    const heldKeys = new Set(held.map((row) => `${row.id}:${row.attempt}`));
    for (const attempt of attempts) if (!heldKeys.has(`${attempt.stageId}:${attempt.attempt}`)) lost.add(attempt.stageId);
    return lost;
  }

  async recordSandbox(runId: string, stageId: string, attempt: number, sandboxId: string): Promise<void> {
    await this.db.insertInto('pipeline_run_sandboxes').values({ sandbox_id: sandboxId, run_id: runId, run_stage_id: stageId, attempt, created_at: nowIso() }).execute();
  }

  async saveLogs(stageId: string, attempt: number, logs: { stdout: string; stderr: string }): Promise<void> {
    await this.db.updateTable('pipeline_stage_attempts').set(logs).where('run_stage_id', '=', stageId).where('attempt', '=', attempt).execute();
  }

  /**
   * Records an attempt's outcome and decides what follows (retry, failure, the run's end, the next
   * stages), only while `workerId` still holds the lease for this attempt; false when it did not.
   */
  async completeAttempt(workerId: string, claimed: ClaimedAttempt, outcome: StageOutcome, logs: { stdout: string; stderr: string }): Promise<boolean> {
    return inTransaction(this.db, async (trx) => {
      const run = (await store.lockRun(trx, this.dialect, claimed.run.id))!;
      const stage = await trx.selectFrom('pipeline_run_stages').selectAll().where('id', '=', claimed.stage.id).executeTakeFirstOrThrow();
      const now = nowIso();
      const held = stage.status === 'running' && stage.lease_owner === workerId && stage.attempt === claimed.stage.attempt;
      await trx
        .updateTable('pipeline_stage_attempts')
        .set({ status: held ? outcome.status : stage.status === 'canceled' ? 'canceled' : 'lost', exit_code: outcome.exit_code ?? null, error: outcome.error ?? null, completed_at: now, ...logs })
        .where('run_stage_id', '=', stage.id)
        .where('attempt', '=', claimed.stage.attempt)
        .where('worker_id', '=', workerId)
        .execute();
      if (!held) return false;
      const settings = effectiveStage(claimed.definition, claimed.pipeline.defaults);
      const common = {
        exit_code: outcome.exit_code ?? null,
        gate_result: outcome.gate_result ? JSON.stringify(outcome.gate_result) : stage.gate_result,
        cost_usd: stage.cost_usd + (outcome.cost_usd ?? 0),
        lease_owner: null,
        lease_expires_at: null,
        updated_at: now,
      };
      const eventData = {
        type: stage.type,
        attempt: stage.attempt,
        exit_code: outcome.exit_code ?? null,
        duration_ms: Date.parse(now) - Date.parse(stage.started_at!),
        cost_usd: outcome.cost_usd ?? 0,
        ...(outcome.error ? { error: outcome.error } : {}),
        ...(outcome.gate_result ? { gate_result: outcome.gate_result } : {}),
      };
      if (outcome.status === 'succeeded') {
        await store.updateStage(trx, stage.id, { ...common, status: 'succeeded', error: null, completed_at: now, duration_ms: Date.parse(now) - Date.parse(stage.started_at!) });
        await this.effects.emit(trx, run, 'pipeline.stage.completed', stage.name, eventData, now);
      } else {
        const failures = stage.failures + 1;
        if (failures < settings.maxAttempts) {
          const delayMs = retryDelayMs(settings, failures);
          await store.updateStage(trx, stage.id, { ...common, status: 'pending', failures, error: outcome.error ?? null, next_attempt_at: new Date(Date.now() + delayMs).toISOString() });
          await this.effects.emit(trx, run, 'pipeline.stage.retrying', stage.name, { ...eventData, retry_in_ms: delayMs }, now);
          return true;
        }
        await store.updateStage(trx, stage.id, {
          ...common,
          status: 'failed',
          failures,
          error: outcome.error ?? null,
          completed_at: now,
          duration_ms: Date.parse(now) - Date.parse(stage.started_at!),
        });
        await this.effects.emit(trx, run, 'pipeline.stage.failed', stage.name, eventData, now);
        const failFast = claimed.definition.type === 'gate' && claimed.definition.config?.fail_fast === true;
        if (settings.onFailure === 'stop' || failFast) {
          await this.effects.cancelRemaining(trx, run.id, now);
          await this.effects.finishRun(trx, run, 'failed', `stage ${stage.name} failed${outcome.error ? `: ${outcome.error}` : ''}`, now);
          return true;
        }
      }
      await this.effects.advance(trx, run);
      return true;
    });
  }

  /** Hands a stage this worker holds back for another attempt at once (graceful shutdown). */
  async release(workerId: string, claimed: ClaimedAttempt, logs: { stdout: string; stderr: string }): Promise<void> {
    await inTransaction(this.db, async (trx) => {
      const run = (await store.lockRun(trx, this.dialect, claimed.run.id))!;
      const now = nowIso();
      const result = await trx
        .updateTable('pipeline_run_stages')
        .set({ status: 'pending', next_attempt_at: now, lease_owner: null, lease_expires_at: null, updated_at: now })
        .where('id', '=', claimed.stage.id)
        .where('lease_owner', '=', workerId)
        .where('attempt', '=', claimed.stage.attempt)
        .where('status', '=', 'running')
        .executeTakeFirst();
      await trx
        .updateTable('pipeline_stage_attempts')
        .set({ status: 'interrupted', error: 'the server shut down during the attempt', completed_at: now, ...logs })
        .where('run_stage_id', '=', claimed.stage.id)
        .where('attempt', '=', claimed.stage.attempt)
        .execute();
      if (Number(result.numUpdatedRows) === 1) await this.effects.emit(trx, run, 'pipeline.stage.interrupted', claimed.stage.name, { attempt: claimed.stage.attempt }, now);
    });
  }

  /** Cancels a run that has not finished; false when it already had. */
  async cancelRun(runId: string, reason: string): Promise<boolean> {
    return inTransaction(this.db, async (trx) => {
      const run = (await store.lockRun(trx, this.dialect, runId))!;
      if (isTerminal(run.status)) return false;
      const now = nowIso();
      await this.effects.cancelRemaining(trx, run.id, now);
      await this.effects.finishRun(trx, run, 'canceled', reason, now);
      return true;
    });
  }

  /**
   * Applies a decision to the stage awaiting approval. Repeating the decision already taken answers
   * the same record (idempotent); anything else with nothing waiting is a conflict.
   */
  decide(runId: string, decision: Decision, inside?: (trx: Tx) => Promise<void>): Promise<store.RunStageRow> {
    return decideApproval(this.db, this.dialect, this.effects, runId, decision, inside);
  }

  /** Runs whose approval SLA has passed, with the decision to apply. */
  overdueApprovals(): Promise<{ runId: string; decision: 'approve' | 'reject' }[]> {
    return findOverdueApprovals(this.db, this.effects);
  }
}
