// Runs, stage records and attempts as the API shows them.
import type { AttemptRow, RunRow, RunStageRow } from './store.js';

function durationMs(startedAt: string | null, completedAt: string | null): number | null {
  if (!startedAt) return null;
  return (completedAt ? Date.parse(completedAt) : Date.now()) - Date.parse(startedAt);
}

export function runListItem(row: RunRow) {
  return {
    id: row.id,
    pipeline_id: row.pipeline_id,
    pipeline_name: row.pipeline_name,
    version: row.version,
    status: row.status,
    trigger: row.trigger,
    session_id: row.session_id,
    created_at: row.created_at,
    started_at: row.started_at,
    completed_at: row.completed_at,
    duration_ms: durationMs(row.started_at, row.completed_at),
  };
}

export function runView(row: RunRow, stages: RunStageRow[]) {
  return { ...runListItem(row), input: JSON.parse(row.input), error: row.error, updated_at: row.updated_at, stages: stages.map(stageView) };
}

export function stageView(row: RunStageRow) {
  return {
    id: row.id,
    name: row.name,
    type: row.type,
    status: row.status,
    attempt: row.attempt,
    exit_code: row.exit_code,
    duration_ms: row.duration_ms ?? (row.status === 'running' || row.status === 'paused_approval' ? durationMs(row.started_at, null) : null),
    started_at: row.started_at,
    completed_at: row.completed_at,
    error: row.error,
    next_attempt_at: row.status === 'pending' && row.attempt > 0 ? row.next_attempt_at : null,
    cost_usd: row.cost_usd,
    ...(row.type === 'gate' || row.type === 'eval' ? { gate_result: row.gate_result ? JSON.parse(row.gate_result) : null } : {}),
    ...(row.type === 'await_approval'
      ? { approval: { deadline: row.approval_deadline, decision: row.approval_decision, decided_by: row.approval_by, comment: row.approval_comment, decided_at: row.approval_at } }
      : {}),
  };
}

export function attemptView(row: AttemptRow) {
  return {
    attempt: row.attempt,
    status: row.status,
    exit_code: row.exit_code,
    error: row.error,
    worker_id: row.worker_id,
    stdout: row.stdout,
    stderr: row.stderr,
    started_at: row.started_at,
    completed_at: row.completed_at,
  };
}
