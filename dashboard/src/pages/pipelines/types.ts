// Shapes of the pipeline and run endpoints the pages read, from src/pipelines/schemas.ts.

export type RunStatus = 'pending' | 'running' | 'paused' | 'succeeded' | 'failed' | 'canceled';
export type StageStatus = 'pending' | 'waiting' | 'running' | 'paused_approval' | 'succeeded' | 'failed' | 'skipped' | 'canceled';

export interface StageDefinition {
  name: string;
  type: string;
  command?: string;
  depends_on?: string[];
  config?: Record<string, unknown>;
  [field: string]: unknown;
}

export interface PipelineListItem {
  id: string;
  name: string;
  status: string;
  version: number;
  created_at: string;
}

export interface Pipeline extends PipelineListItem {
  description: string;
  stages: StageDefinition[];
  defaults: Record<string, unknown>;
  updated_at: string;
}

export interface PipelineVersion {
  pipeline_id: string;
  name: string;
  version: number;
  description: string;
  stages: StageDefinition[];
  defaults: Record<string, unknown>;
  created_at: string;
}

export interface Approval {
  deadline: string | null;
  decision: string | null;
  decided_by: string | null;
  comment: string | null;
  decided_at: string | null;
}

export interface StageRecord {
  id: string;
  name: string;
  type: string;
  status: StageStatus;
  attempt: number;
  exit_code: number | null;
  duration_ms: number | null;
  started_at: string | null;
  completed_at: string | null;
  error: string | null;
  next_attempt_at: string | null;
  cost_usd: number;
  gate_result?: unknown;
  approval?: Approval;
}

export interface RunListItem {
  id: string;
  pipeline_id: string;
  pipeline_name: string;
  version: number;
  status: RunStatus;
  trigger: string;
  session_id: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  duration_ms: number | null;
}

export interface Run extends RunListItem {
  input: { env: Record<string, string>; repo: string | null; branch: string | null };
  error: string | null;
  updated_at: string;
  stages: StageRecord[];
}

export interface StageAttempt {
  attempt: number;
  status: string;
  exit_code: number | null;
  error: string | null;
  worker_id: string;
  stdout: string;
  stderr: string;
  started_at: string;
  completed_at: string | null;
}

export interface StageLogs {
  stage: string;
  status: string;
  attempts: StageAttempt[];
}

export interface StateEntry {
  key: string;
  value: string;
  type: string;
  mime_type: string | null;
  size_bytes: number;
  created_by: string;
  created_at: string;
  updated_at: string;
  expires_at: string;
}

export interface RunEvents {
  run_id: string;
  events: { sequence: number; type: string; stage: string | null; data: unknown; timestamp: string }[];
  next_sequence: number;
  has_more: boolean;
}

export const ACTIVE_RUN_STATUSES: readonly RunStatus[] = ['pending', 'running', 'paused'];
