// Shapes the overview reads, from src/sandboxes/schemas.ts, src/billing/schemas.ts and src/pipelines/schemas.ts.
export interface SandboxListItem {
  id: string;
  status: 'creating' | 'running' | 'paused' | 'restoring' | 'error' | 'destroyed';
  template: string;
  created_at: string;
}

export interface Subscription {
  plan: 'free' | 'pro' | 'team' | 'enterprise';
  status: 'active' | 'past_due' | 'canceled' | 'pending';
  current_period_start: string;
  current_period_end: string;
  limits: { concurrent_sandboxes: number | null; compute_hours_per_month: number | null; requests_per_minute: number };
  usage: { compute_hours: number; compute_cost_usd: number; llm_cost_usd: number; total_cost_usd: number; sandboxes_created: number };
}

export interface PipelineListItem {
  id: string;
  name: string;
  status: string;
  created_at: string;
}

export interface RunListItem {
  id: string;
  pipeline_id: string;
  pipeline_name: string;
  status: 'pending' | 'running' | 'paused' | 'succeeded' | 'failed' | 'canceled';
  trigger: string;
  created_at: string;
  duration_ms: number | null;
}
