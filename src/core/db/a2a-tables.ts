// The agent-delegation tables (migration 0016), kept beside schema.ts so that file stays one screenful per feature.
import type { MessageRole, TaskEventKind, TaskStatus } from './column-values.js';

export interface A2aAgentsTable {
  id: string;
  account_id: string;
  name: string;
  description: string;
  pipeline_id: string;
  template: string | null;
  /** JSON array of skills `{id, name, description, tags, input_schema}`. */
  skills: string;
  public: number;
  enabled: number;
  max_cost_per_task: number | null;
  rate_limit_rpm: number | null;
  /** Bumped by every change; the card's `version` is its string. */
  version: number;
  created_at: string;
  updated_at: string;
}

export interface A2aTasksTable {
  id: string;
  account_id: string;
  agent_id: string;
  run_id: string;
  context_id: string;
  skill_id: string;
  /** JSON object. */
  input: string;
  priority: number;
  status: TaskStatus;
  status_message: string | null;
  /** JSON `{percentage, current_step, message}`. */
  progress: string;
  /** JSON, set when the task completes. */
  output: string | null;
  error: string | null;
  cost_usd: number;
  /** The agent's max_cost_per_task when the task was created. */
  max_cost_usd: number | null;
  /** The last sequence written to a2a_task_events. */
  event_count: number;
  /** The run's session (migration 0017). */
  session_id: string | null;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  updated_at: string;
}

export interface A2aTaskEventsTable {
  task_id: string;
  sequence: number;
  kind: TaskEventKind;
  /** JSON object: the stream event's data. */
  data: string;
  created_at: string;
}

export interface A2aTaskMessagesTable {
  id: string;
  task_id: string;
  role: MessageRole;
  /** JSON array of parts. */
  parts: string;
  created_at: string;
}

export interface A2aTaskArtifactsTable {
  id: string;
  task_id: string;
  name: string;
  mime_type: string;
  state_key: string;
  created_at: string;
}

export interface A2aWebhooksTable {
  id: string;
  account_id: string;
  url: string;
  /** JSON array of task event names. */
  events: string;
  secret: string;
  created_at: string;
  updated_at: string;
}

export interface A2aPushConfigsTable {
  id: string;
  account_id: string;
  task_id: string;
  url: string;
  token: string | null;
  /** JSON `{scheme, credentials}` or null. */
  authentication: string | null;
  created_at: string;
}
