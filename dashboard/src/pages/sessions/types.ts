// Shapes of the session endpoints the pages read, from src/sessions/schemas.ts.
export const EVENT_TYPES = ['llm_call', 'tool_call', 'file_op', 'command', 'network', 'error', 'lifecycle'] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const SESSION_STATUSES = ['active', 'completed', 'failed', 'timeout'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

export interface Session {
  id: string;
  sandbox_id: string | null;
  pipeline_run_id: string | null;
  status: SessionStatus;
  agent_type: string | null;
  model: string | null;
  tokens_in: number;
  tokens_out: number;
  cost_usd: number;
  llm_cost_usd: number;
  compute_cost_usd: number;
  trust_score: number;
  event_count: number;
  duration_ms: number;
  started_at: string | null;
  ended_at: string | null;
  last_event_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface ReplayEvent {
  id: string;
  session_id: string;
  sequence: number;
  type: EventType;
  timestamp: string;
  data: Record<string, unknown>;
  meta: Record<string, unknown>;
  cost_usd?: number;
}

export interface ReplayPage {
  events: ReplayEvent[];
  has_more: boolean;
  next_seq: number;
  total: number;
}

export interface Finding {
  rule: string;
  severity: 'low' | 'medium' | 'high' | 'critical';
  weight: number;
  penalty: number;
  sequence: number;
  evidence: string;
  created_at: string;
}

export interface ReplaySummary {
  session_id: string;
  sandbox_id: string | null;
  pipeline_run_id: string | null;
  status: SessionStatus;
  event_count: number;
  counts: Record<EventType, number>;
  first_event_at: string | null;
  last_event_at: string | null;
  duration_ms: number;
  tokens_in: number;
  tokens_out: number;
  cost_usd: number;
  llm_cost_usd: number;
  compute_cost_usd: number;
  trust_score: number;
  findings: Finding[];
}
