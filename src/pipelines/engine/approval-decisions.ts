// Approval decisions: a person's (or the SLA's automatic) decision on a stage awaiting approval, and
// which approvals are past their SLA. Transitions exposes both; they write stage and run status like
// every other transition, under the run's lock, with their events.
import { inTransaction } from '../../core/db/after-commit.js';
import type { Db, Tx } from '../../core/db/handles.js';
import type { SqlDialect } from '../../core/db/dialect.js';
import { Conflict } from '../../core/errors.js';
import { nowIso } from '../../core/time.js';
import { configOf } from '../definition/types.js';
import * as store from '../runs/store.js';
import type { RunEffects } from './run-effects.js';

export interface Decision {
  by: string;
  comment: string | null;
  decision: 'approve' | 'reject';
}

/**
 * Applies a decision to the stage awaiting approval. Repeating the decision already taken answers
 * the same record (idempotent); anything else with nothing waiting is a conflict.
 */
export async function decideApproval(db: Db, dialect: SqlDialect, effects: RunEffects, runId: string, decision: Decision, inside?: (trx: Tx) => Promise<void>): Promise<store.RunStageRow> {
  return inTransaction(db, async (trx) => {
    const run = (await store.lockRun(trx, dialect, runId))!;
    const stages = await store.stagesOf(trx, run.id);
    const waiting = stages.find((stage) => stage.status === 'paused_approval');
    if (!waiting) {
      const decided = stages.filter((stage) => stage.type === 'await_approval' && stage.approval_decision).sort((a, b) => (b.approval_at ?? '').localeCompare(a.approval_at ?? ''))[0];
      if (decided && decided.approval_decision === decision.decision && !inside) return decided;
      throw new Conflict('no stage of this run is waiting for approval');
    }
    // Whatever the caller records with the decision (a task's reply) is written before the decision's events.
    await inside?.(trx);
    const now = nowIso();
    const approved = decision.decision === 'approve';
    const changes = {
      status: approved ? ('succeeded' as const) : ('canceled' as const),
      approval_decision: decision.decision,
      approval_by: decision.by,
      approval_comment: decision.comment,
      approval_at: now,
      approval_deadline: null,
      completed_at: now,
      duration_ms: Date.parse(now) - Date.parse(waiting.started_at!),
      updated_at: now,
    };
    await store.updateStage(trx, waiting.id, changes);
    const type = decision.by === 'sla_timeout' ? 'pipeline.stage.approval_auto_decided' : approved ? 'pipeline.stage.approved' : 'pipeline.stage.rejected';
    await effects.emit(trx, run, type, waiting.name, { decision: decision.decision, by: decision.by, comment: decision.comment }, now);
    if (approved) {
      await effects.emit(trx, run, 'pipeline.stage.completed', waiting.name, { attempt: waiting.attempt, approved_by: decision.by }, now);
      // Another approval of a parallel branch may still wait: the run stays paused until none does.
      if (!stages.some((stage) => stage.id !== waiting.id && stage.status === 'paused_approval')) {
        run.status = 'running';
        await store.updateRun(trx, run.id, { status: 'running', updated_at: now });
      }
      await effects.advance(trx, run);
    } else {
      await effects.cancelRemaining(trx, run.id, now);
      await effects.finishRun(trx, run, 'canceled', `rejected by ${decision.by}${decision.comment ? `: ${decision.comment}` : ''}`, now);
    }
    return { ...waiting, ...changes };
  });
}

/** Runs whose approval SLA has passed, with the decision to apply. */
export async function findOverdueApprovals(db: Db, effects: RunEffects): Promise<{ runId: string; decision: 'approve' | 'reject' }[]> {
  const rows = await db
    .selectFrom('pipeline_run_stages as s')
    .innerJoin('pipeline_runs as r', 'r.id', 's.run_id')
    .select(['s.run_id', 's.name', 'r.pipeline_id', 'r.version'])
    .where('s.status', '=', 'paused_approval')
    .where('s.approval_deadline', '<=', nowIso())
    .execute();
  const overdue: { runId: string; decision: 'approve' | 'reject' }[] = [];
  for (const row of rows) {
    const definition = await effects.definition(db, row.pipeline_id, row.version);
    const auto = configOf(
      definition.stages.find((s) => s.name === row.name),
      'await_approval',
    )?.auto_decision;
    overdue.push({ runId: row.run_id, decision: auto === 'approve' ? 'approve' : 'reject' });
  }
  return overdue;
}
