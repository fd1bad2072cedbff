// Appending events to a session: sequence numbers, LLM cost, token and per-type totals, the time range,
// status changes and trust findings. Pure: the service reads the session row, calls this, writes the result.
export { SESSION_STATUSES, type SessionStatus } from '../core/db/column-values.js';
import type { SessionStatus } from '../core/db/column-values.js';
import type { Insertable, Selectable, Updateable } from 'kysely';
import type { SessionEventsTable, SessionsTable } from '../core/db/schema.js';
import type { EventType, IngestedEvent } from './ingest-validation.js';
import type { PriceTable } from './pricing.js';
import { findingsForEvent, type Finding } from './trust.js';

export type SessionRow = Selectable<SessionsTable>;
export type EventRow = Insertable<SessionEventsTable>;

/** The parts of an ingested event a session needs; the server's own recordings build these directly. */
export type TimelineEvent = Pick<IngestedEvent, 'id' | 'clientId' | 'type' | 'timestamp' | 'meta' | 'payload'>;

const COUNT_COLUMN: Record<EventType, keyof SessionsTable & `${string}_count`> = {
  llm_call: 'llm_call_count',
  tool_call: 'tool_call_count',
  file_op: 'file_op_count',
  command: 'command_count',
  network: 'network_count',
  error: 'error_count',
  lifecycle: 'lifecycle_count',
};

export function countColumn(type: EventType) {
  return COUNT_COLUMN[type];
}

export interface Appended {
  rows: EventRow[];
  changes: Updateable<SessionsTable>;
  findings: (Finding & { sequence: number })[];
}

/** LLM cost of an llm_call: `cost_usd` as sent, else priced from the model table; null when neither applies. */
export function llmCost(payload: Record<string, unknown>, prices: PriceTable): number | null {
  if (typeof payload.cost_usd === 'number') return payload.cost_usd;
  if (typeof payload.model !== 'string') return null;
  return prices.cost(payload.model, (payload.tokens_in as number | undefined) ?? 0, (payload.tokens_out as number | undefined) ?? 0);
}

/**
 * Status rules: `timeout` is not final (the next event makes the session `active` again); a lifecycle
 * event with payload.status `completed` or `failed` ends an active session at that event's timestamp;
 * `completed` and `failed` are final, later events are still recorded.
 */
function nextStatus(current: SessionStatus, event: TimelineEvent): SessionStatus {
  let status: SessionStatus = current === 'timeout' ? 'active' : current;
  if (status === 'active' && event.type === 'lifecycle' && (event.payload.status === 'completed' || event.payload.status === 'failed')) status = event.payload.status;
  return status;
}

function firstName(...values: unknown[]): string | null {
  for (const value of values) if (typeof value === 'string') return value;
  return null;
}

export function appendEvents(session: SessionRow, events: TimelineEvent[], prices: PriceTable, nowIso: string): Appended {
  const rows: EventRow[] = [];
  const findings: (Finding & { sequence: number })[] = [];
  const counts = new Map<EventType, number>();
  let { status, agent_type: agentType, model, started_at: startedAt, last_event_at: lastEventAt, ended_at: endedAt } = session;
  let tokensIn = Number(session.tokens_in);
  let tokensOut = Number(session.tokens_out);
  let llmCostUsd = Number(session.llm_cost_usd);
  let sequence = session.event_count;

  for (const event of events) {
    sequence++;
    const { payload } = event;
    let costUsd: number | null = null;
    if (event.type === 'llm_call') {
      costUsd = llmCost(payload, prices);
      if (costUsd !== null) llmCostUsd += costUsd;
      tokensIn += (payload.tokens_in as number | undefined) ?? 0;
      tokensOut += (payload.tokens_out as number | undefined) ?? 0;
      model ??= firstName(payload.model);
    }
    if (event.type === 'lifecycle') model ??= firstName(payload.model);
    agentType ??= firstName(event.meta.agent_type, event.type === 'lifecycle' ? payload.agent_type : undefined);
    counts.set(event.type, (counts.get(event.type) ?? 0) + 1);
    if (startedAt === null || event.timestamp < startedAt) startedAt = event.timestamp;
    if (lastEventAt === null || event.timestamp > lastEventAt) lastEventAt = event.timestamp;
    const before = status;
    status = nextStatus(status, event);
    if (before === 'timeout') endedAt = null;
    if (status !== before && status !== 'active') endedAt = event.timestamp;
    for (const finding of findingsForEvent(event.type, payload)) findings.push({ ...finding, sequence });
    rows.push({
      session_key: session.key,
      sequence,
      id: event.id,
      type: event.type,
      timestamp: event.timestamp,
      data: JSON.stringify(payload),
      meta: Object.keys(event.meta).length ? JSON.stringify(event.meta) : null,
      cost_usd: costUsd,
      client_id: event.clientId ? 1 : 0,
    });
  }

  const changes: Updateable<SessionsTable> = {
    status,
    agent_type: agentType,
    model,
    tokens_in: tokensIn,
    tokens_out: tokensOut,
    llm_cost_usd: llmCostUsd,
    event_count: sequence,
    started_at: startedAt,
    last_event_at: lastEventAt,
    ended_at: endedAt,
    last_activity_at: nowIso,
    updated_at: nowIso,
  };
  for (const [type, added] of counts) changes[COUNT_COLUMN[type]] = session[COUNT_COLUMN[type]] + added;
  return { rows, changes, findings };
}
