// Shapes of the sandbox API answers the pages use, written from src/sandboxes, src/ports and src/snapshots schemas.

export type SandboxStatus = 'creating' | 'running' | 'paused' | 'restoring' | 'error' | 'destroyed';

/** GET /v1/sandboxes (limit ≤ 500, offset; newest first). */
export interface SandboxListItem {
  id: string;
  status: SandboxStatus;
  template: string;
  cpus: number;
  memory_mb: number;
  disk_gb: number;
  budget: number | null;
  spend_usd: number;
  created_at: string;
}

/** GET /v1/sandboxes/:id */
export interface Sandbox extends SandboxListItem {
  error: string | null;
  runtime: string;
  ip: string | null;
  network_mode: string;
  allowlist: string[];
  env: Record<string, string>;
  repo: string | null;
  repo_branch: string | null;
  compute_cost_usd: number;
  llm_cost_usd: number;
  timeout: number | null;
  updated_at: string;
  last_activity_at: string;
  destroyed_at: string | null;
  destroyed_reason: 'deleted' | 'budget_exceeded' | null;
  paused_at: string | null;
}

/** GET /v1/templates */
export interface Template {
  name: string;
  description: string;
  ready: boolean;
  reason?: string;
  how_to_fix?: string;
}

/** GET /v1/sandboxes/:id/ports */
export interface Port {
  port: number;
  protocol: 'http' | 'tcp';
  preview_url: string | null;
  protected: boolean;
  detected_at: string;
}

/** GET /v1/sandboxes/:id/snapshots */
export interface Snapshot {
  id: string;
  sandbox_id: string;
  name: string;
  size_bytes: number;
  status: 'creating' | 'completed' | 'failed';
  kind: 'manual' | 'pause';
  template: string;
  error: string | null;
  created_at: string;
  completed_at: string | null;
}

/** GET /v1/sandboxes/:id/events */
export interface SandboxEvent {
  id: string;
  type: string;
  at: string;
  from: SandboxStatus | null;
  to: SandboxStatus | null;
  data: Record<string, unknown>;
}

/** GET /v1/sessions?sandbox_id= */
export interface SessionSummary {
  id: string;
  status: string;
  agent_type: string | null;
  model: string | null;
  cost_usd: number;
  event_count: number;
  started_at: string | null;
  created_at: string;
}
