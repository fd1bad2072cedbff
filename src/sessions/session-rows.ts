// A session row's own rules: a new row's defaults, what may write to it, and the span its compute is
// charged for.
import type { Insertable } from 'kysely';
import type { SessionsTable } from '../core/db/schema.js';
import { newId } from '../core/ids.js';
import type { IngestedEvent } from './ingest-validation.js';
import type { SessionRow } from './timeline.js';

/** What a session belongs to: a sandbox, or a pipeline run (whose timeline it records). */
export type SessionOwner = { sandboxId: string; pipelineRunId: null } | { sandboxId: null; pipelineRunId: string };

export function newSessionRow(accountId: string, id: string, owner: SessionOwner, now: string, agentType: string | null = null): Insertable<SessionsTable> {
  return {
    key: newId('sek'),
    id,
    account_id: accountId,
    sandbox_id: owner.sandboxId,
    pipeline_run_id: owner.pipelineRunId,
    status: 'active',
    agent_type: agentType,
    model: null,
    tokens_in: 0,
    tokens_out: 0,
    llm_cost_usd: 0,
    compute_cost_usd: 0,
    trust_score: 100,
    trust_alerts_raised: 0,
    trust_alert_pending: 0,
    event_count: 0,
    llm_call_count: 0,
    tool_call_count: 0,
    file_op_count: 0,
    command_count: 0,
    network_count: 0,
    error_count: 0,
    lifecycle_count: 0,
    started_at: null,
    last_event_at: null,
    ended_at: null,
    last_activity_at: now,
    created_at: now,
    updated_at: now,
  };
}

/** Why an event may not go to `session`, or null when it may. */
export function ownerMismatch(session: SessionRow, event: IngestedEvent): string | null {
  if (session.pipeline_run_id !== null) {
    if (event.pipelineRunId !== session.pipeline_run_id)
      return `session ${session.id} is the session of pipeline run ${session.pipeline_run_id}, not of ${event.sandboxId ? `sandbox ${event.sandboxId}` : `run ${event.pipelineRunId}`}`;
    if (event.type === 'lifecycle') return `lifecycle events of a pipeline run's session are recorded by Paddock from the run's transitions`;
    return null;
  }
  if (event.sandboxId === session.sandbox_id) return null;
  return `session ${session.id} belongs to sandbox ${session.sandbox_id}, not ${event.sandboxId ? event.sandboxId : `pipeline run ${event.pipelineRunId}`}`;
}

/**
 * A session's span: from its first event to when it ended; an active session's span runs until now.
 * Sessions of one sandbox that overlap are each charged the compute of their span (the sandbox's own
 * spend counts it once).
 */
export function sessionWindow(row: SessionRow): { fromMs: number; toMs: number | null } | null {
  if (!row.started_at) return null;
  const end = row.ended_at ?? (row.status === 'active' ? null : row.last_event_at);
  return { fromMs: Date.parse(row.started_at), toMs: end === null ? null : Date.parse(end) };
}
