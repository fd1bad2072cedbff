// Turns session, event and finding rows into the shapes the API returns.
import type { Selectable } from 'kysely';
import type { SessionEventsTable, SessionFindingsTable } from '../core/db/schema.js';
import { EVENT_TYPES, type EventType } from './ingest-validation.js';
import { countColumn, type SessionRow } from './timeline.js';

/** Float sums drift (0.1 + 0.2); ten decimals are far below a cent and above the drift. */
function usd(value: number): number {
  return Math.round(value * 1e10) / 1e10;
}

export function durationMs(row: SessionRow): number {
  if (!row.started_at) return 0;
  const end =
    [row.ended_at, row.last_event_at]
      .filter((t): t is string => t !== null)
      .sort()
      .at(-1) ?? row.started_at;
  return Math.max(0, Date.parse(end) - Date.parse(row.started_at));
}

export function sessionView(row: SessionRow) {
  const llm = Number(row.llm_cost_usd);
  const compute = Number(row.compute_cost_usd);
  return {
    id: row.id,
    sandbox_id: row.sandbox_id,
    pipeline_run_id: row.pipeline_run_id,
    status: row.status,
    agent_type: row.agent_type,
    model: row.model,
    tokens_in: Number(row.tokens_in),
    tokens_out: Number(row.tokens_out),
    cost_usd: usd(llm + compute),
    llm_cost_usd: usd(llm),
    compute_cost_usd: usd(compute),
    trust_score: row.trust_score,
    event_count: row.event_count,
    duration_ms: durationMs(row),
    started_at: row.started_at,
    ended_at: row.ended_at,
    last_event_at: row.last_event_at,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/**
 * A replay page as JSON text. Event data and meta are stored as the JSON text Paddock itself wrote, so
 * they are spliced in as they are rather than parsed and serialized again for every page.
 */
export function replayPageJson(sessionId: string, rows: Selectable<SessionEventsTable>[], page: { hasMore: boolean; nextSeq: number; total: number }): string {
  const session = JSON.stringify(sessionId);
  const events = rows.map(
    (row) =>
      `{"id":${JSON.stringify(row.id)},"session_id":${session},"sequence":${row.sequence},"type":${JSON.stringify(row.type)},"timestamp":${JSON.stringify(row.timestamp)},"data":${row.data},"meta":${row.meta ?? '{}'}${row.cost_usd === null ? '' : `,"cost_usd":${usd(Number(row.cost_usd))}`}}`,
  );
  return `{"events":[${events.join(',')}],"has_more":${page.hasMore},"next_seq":${page.nextSeq},"total":${page.total}}`;
}

export function findingView(row: Selectable<SessionFindingsTable>) {
  return { rule: row.rule, severity: row.severity, weight: row.weight, penalty: row.penalty, sequence: row.sequence, evidence: row.evidence, created_at: row.created_at };
}

export function countsByType(row: SessionRow): Record<EventType, number> {
  return Object.fromEntries(EVENT_TYPES.map((type) => [type, row[countColumn(type)]])) as Record<EventType, number>;
}
