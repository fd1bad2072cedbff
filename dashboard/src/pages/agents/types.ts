// Shapes of the A2A registry and tasks, from src/a2a/agents/schemas.ts, card.ts and tasks/schemas.ts.
export interface Skill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  input_schema: Record<string, unknown>;
}

export interface Agent {
  id: string;
  account_id: string;
  name: string;
  description: string;
  pipeline_id: string;
  template: string | null;
  skills: Skill[];
  public: boolean;
  enabled: boolean;
  max_cost_per_task: number | null;
  rate_limit_rpm: number;
  version: number;
  url: string;
  created_at: string;
  updated_at: string;
}

export interface AgentCard {
  name: string;
  description: string;
  url: string;
  version: string;
  capabilities: { streaming: boolean; push: boolean };
  input_modes: string[];
  output_modes: string[];
  skills: { id: string; name: string; description: string; tags: string[] }[];
  authentication: { type: string; schemes: string[] };
  provider: { name: string; organization: string; url: string };
}

export const TASK_STATUSES = ['pending', 'running', 'input_needed', 'completed', 'failed', 'canceled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
export const ENDED: readonly TaskStatus[] = ['completed', 'failed', 'canceled'];

export interface Task {
  id: string;
  agent_id: string;
  status: TaskStatus;
  status_message: string | null;
  progress: { percentage: number; current_step: string | null; message: string | null };
  skill_id: string;
  input: Record<string, unknown>;
  priority: number;
  output: unknown;
  artifacts: { id: string; name: string; mime_type: string; created_at: string }[];
  cost_usd: number;
  context_id: string;
  run_id: string;
  session_id: string | null;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface TaskList {
  tasks: Task[];
  total: number;
  limit: number;
  offset: number;
}

export interface TaskMessage {
  id: string;
  task_id: string;
  role: 'user' | 'agent';
  parts: Record<string, unknown>[];
  created_at: string;
}

export interface PipelineSummary {
  id: string;
  name: string;
  status: string;
}
