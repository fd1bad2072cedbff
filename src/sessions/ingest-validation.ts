// Checks one ingested event on its own, so a bad event is reported by index while the rest of the
// batch is stored. Reasons name the field, as every 400 of the API does.
import { randomUUID } from 'node:crypto';

export const EVENT_TYPES = ['llm_call', 'tool_call', 'file_op', 'command', 'network', 'error', 'lifecycle'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const MAX_EVENTS_PER_REQUEST = 1000;
export const MAX_INGEST_BODY_BYTES = 4 * 1024 * 1024;
/** Client clocks drift: this much future is accepted. */
export const MAX_FUTURE_SKEW_MS = 5 * 60 * 1000;
/** Older events are refused: nothing buffers agent telemetry for longer, and a 1970 date is a bug. */
export const MAX_EVENT_AGE_MS = 30 * 24 * 60 * 60 * 1000;
export const SESSION_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;
export const LIFECYCLE_STATUSES = ['started', 'completed', 'failed'] as const;
const MAX_TOKENS_PER_EVENT = 100_000_000;
const MAX_COST_PER_EVENT_USD = 1_000_000;

const SANDBOX_ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
const FIELDS = new Set(['id', 'session_id', 'sandbox_id', 'pipeline_run_id', 'type', 'timestamp', 'meta', 'payload']);
const RUN_ID_PATTERN = /^run_[A-Za-z0-9_-]{1,60}$/;
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/i;
/** What toISOString produces; such timestamps are stored as sent. */
const CANONICAL_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const TYPES: ReadonlySet<string> = new Set(EVENT_TYPES);

export interface IngestedEvent {
  /** The replay id: the client's, or a new UUID. */
  id: string;
  /** The id the client chose (a UUID, lower case), or null. */
  clientId: string | null;
  sessionId: string;
  /** Exactly one of sandboxId and pipelineRunId is set: the session's owner the event names. */
  sandboxId: string | null;
  pipelineRunId: string | null;
  type: EventType;
  /** Normalized to ISO 8601 UTC with milliseconds. */
  timestamp: string;
  timestampMs: number;
  meta: Record<string, unknown>;
  payload: Record<string, unknown>;
}

type Check = (value: unknown) => boolean;
const isString: Check = (v) => typeof v === 'string';
/** Stored in columns and shown in lists: short, printable. */
const isName: Check = (v) => typeof v === 'string' && v.length > 0 && v.length <= 200 && !/[\u0000-\u001f\u007f]/.test(v);
const isBoolean: Check = (v) => typeof v === 'boolean';
const isInteger: Check = (v) => Number.isSafeInteger(v);
const isCount: Check = (v) => Number.isSafeInteger(v) && (v as number) >= 0 && (v as number) <= MAX_TOKENS_PER_EVENT;
const isCost: Check = (v) => typeof v === 'number' && Number.isFinite(v) && v >= 0 && v <= MAX_COST_PER_EVENT_USD;
const isLifecycleStatus: Check = (v) => typeof v === 'string' && (LIFECYCLE_STATUSES as readonly string[]).includes(v);

/** Payload fields Paddock reads, per type: when present they must have these types. Others pass through. */
const PAYLOAD_FIELDS: Record<EventType, Record<string, [Check, string]>> = {
  llm_call: {
    model: [isName, 'a name of 1-200 printable characters'],
    provider: [isName, 'a name of 1-200 printable characters'],
    tokens_in: [isCount, `an integer from 0 to ${MAX_TOKENS_PER_EVENT}`],
    tokens_out: [isCount, `an integer from 0 to ${MAX_TOKENS_PER_EVENT}`],
    cost_usd: [isCost, `a number from 0 to ${MAX_COST_PER_EVENT_USD}`],
  },
  tool_call: { name: [isString, 'a string'] },
  file_op: { operation: [isString, 'a string'], path: [isString, 'a string'] },
  command: { command: [isString, 'a string'], exit_code: [isInteger, 'an integer'], output: [isString, 'a string'] },
  network: { allowed: [isBoolean, 'a boolean'], host: [isString, 'a string'], url: [isString, 'a string'] },
  error: { message: [isString, 'a string'] },
  lifecycle: {
    status: [isLifecycleStatus, `one of: ${LIFECYCLE_STATUSES.join(', ')}`],
    agent_type: [isName, 'a name of 1-200 printable characters'],
    model: [isName, 'a name of 1-200 printable characters'],
  },
};

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function describeAge(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  return minutes < 120 ? `${minutes} minutes` : minutes < 2880 ? `${Math.round(minutes / 60)} hours` : `${Math.round(minutes / 1440)} days`;
}

function checkTimestamp(value: unknown, nowMs: number): number | string {
  if (typeof value !== 'string') return 'timestamp is required: an ISO 8601 time such as 2025-01-31T12:00:00Z';
  if (!ISO_TIMESTAMP.test(value)) return `timestamp must be an ISO 8601 time with a zone (e.g. 2025-01-31T12:00:00Z), got "${value.slice(0, 40)}"`;
  const ms = Date.parse(value);
  if (!Number.isFinite(ms)) return `timestamp is not a valid date: "${value.slice(0, 40)}"`;
  if (ms > nowMs + MAX_FUTURE_SKEW_MS) return `timestamp is ${describeAge(ms - nowMs)} in the future; at most 5 minutes of clock skew is accepted`;
  if (ms < nowMs - MAX_EVENT_AGE_MS) return `timestamp is ${describeAge(nowMs - ms)} old; events older than 30 days are refused`;
  return ms;
}

/** The event, or why it was refused. */
export function parseEvent(raw: unknown, nowMs: number): IngestedEvent | string {
  if (!isPlainObject(raw)) return 'event must be an object';
  for (const name of Object.keys(raw)) if (!FIELDS.has(name)) return `${name} is not a known field`;
  const { id, session_id: sessionId, sandbox_id: sandboxId, pipeline_run_id: pipelineRunId, type, timestamp, meta = {}, payload = {} } = raw;
  if (id !== undefined && (typeof id !== 'string' || !UUID.test(id))) return 'id must be a UUID string when given';
  if (sessionId === undefined) return 'session_id is required';
  if (typeof sessionId !== 'string' || !SESSION_ID_PATTERN.test(sessionId)) return "session_id must be 1-128 characters: letters, digits, '.', '_', ':' or '-', starting with a letter or digit";
  if (sandboxId === undefined && pipelineRunId === undefined) return 'sandbox_id is required (or pipeline_run_id for the session of a pipeline run)';
  if (sandboxId !== undefined && pipelineRunId !== undefined) return 'send either sandbox_id or pipeline_run_id, not both';
  if (sandboxId !== undefined && (typeof sandboxId !== 'string' || !SANDBOX_ID_PATTERN.test(sandboxId))) return 'sandbox_id must be a sandbox id such as sbx_…';
  if (pipelineRunId !== undefined && (typeof pipelineRunId !== 'string' || !RUN_ID_PATTERN.test(pipelineRunId))) return 'pipeline_run_id must be a run id such as run_…';
  if (type === undefined) return 'type is required';
  if (typeof type !== 'string' || !TYPES.has(type)) return `type must be one of: ${EVENT_TYPES.join(', ')}`;
  const timestampMs = checkTimestamp(timestamp, nowMs);
  if (typeof timestampMs === 'string') return timestampMs;
  if (!isPlainObject(meta)) return 'meta must be an object';
  if (!isPlainObject(payload)) return 'payload must be an object';
  for (const [name, [check, expected]] of Object.entries(PAYLOAD_FIELDS[type as EventType])) {
    if (payload[name] !== undefined && !check(payload[name])) return `payload.${name} must be ${expected} for ${type} events`;
  }
  if (meta.agent_type !== undefined && !isName(meta.agent_type)) return 'meta.agent_type must be a name of 1-200 printable characters';
  const clientId = (id as string | undefined)?.toLowerCase() ?? null;
  return {
    id: clientId ?? randomUUID(),
    clientId,
    sessionId,
    sandboxId: (sandboxId as string | undefined) ?? null,
    pipelineRunId: (pipelineRunId as string | undefined) ?? null,
    type: type as EventType,
    timestamp: CANONICAL_TIMESTAMP.test(timestamp as string) ? (timestamp as string) : new Date(timestampMs).toISOString(),
    timestampMs,
    meta,
    payload,
  };
}
