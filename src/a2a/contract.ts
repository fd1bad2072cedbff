// What the parts of agent delegation agree on: the registry (agents/), tasks and their event log
// (tasks/), the task stream (stream/), task webhooks (webhooks/) and the A2A protocol binding
// (protocol/). Each part reaches another only through these interfaces.
import type { Tx } from '../core/db/handles.js';
import type { MessageRole, TaskEventKind, TaskStatus } from '../core/db/column-values.js';

export { TASK_STATUSES, TASK_EVENT_KINDS, type TaskStatus, type TaskEventKind, type MessageRole } from '../core/db/column-values.js';

/** The statuses a task never leaves. */
export const TERMINAL_TASK_STATUSES: readonly TaskStatus[] = ['completed', 'failed', 'canceled'];

export interface Skill {
  id: string;
  name: string;
  description: string;
  tags: string[];
  /** A JSON Schema for the task `input`, compiled when the agent is registered. */
  input_schema: Record<string, unknown>;
}

export interface AgentRecord {
  id: string;
  accountId: string;
  name: string;
  description: string;
  pipelineId: string;
  /** Overrides the pipeline's template for its command stages; null: the pipeline's own. */
  template: string | null;
  skills: Skill[];
  public: boolean;
  enabled: boolean;
  maxCostPerTask: number | null;
  rateLimitRpm: number | null;
  /** Bumped by every change of the registration. */
  version: number;
  createdAt: string;
  updatedAt: string;
}

/** What tasks (and the protocol binding) need of the registry. */
export interface AgentDirectory {
  /** The account's agent; throws agent_not_found (404). */
  get(accountId: string, agentId: string): Promise<AgentRecord>;
  /** A public, enabled agent of any account, or null (open discovery, the protocol's card). */
  findPublic(agentId: string): Promise<AgentRecord | null>;
  /** Throws skill_not_found (400) or invalid_input (400, `details.errors`) unless `input` matches the skill's schema. */
  validateInput(agent: AgentRecord, skillId: string, input: unknown): void;
}

export type Part = { type: 'text'; text: string } | { type: 'data'; data: unknown; name?: string } | { type: 'file'; name: string; mime_type: string; data: string };

export interface TaskProgress {
  percentage: number;
  current_step: string | null;
  message: string | null;
}

export interface ArtifactView {
  id: string;
  name: string;
  mime_type: string;
  created_at: string;
}

/** A task as the API answers it. */
export interface TaskView {
  id: string;
  agent_id: string;
  status: TaskStatus;
  status_message: string | null;
  progress: TaskProgress;
  skill_id: string;
  input: Record<string, unknown>;
  priority: number;
  output: unknown;
  artifacts: ArtifactView[];
  cost_usd: number;
  context_id: string;
  run_id: string;
  /** The run's session: its timeline, cost and trust (GET /v1/sessions/{id}). */
  session_id: string | null;
  started_at: string | null;
  completed_at: string | null;
  created_at: string;
  updated_at: string;
}

export interface MessageView {
  id: string;
  task_id: string;
  role: MessageRole;
  parts: Part[];
  created_at: string;
}

/** One entry of a task's event log, as its stream sends it (`id:` is the sequence, `event:` the kind). */
export interface TaskEvent {
  sequence: number;
  kind: TaskEventKind;
  /** `status`: {status, message}; `progress`: {percentage, current_step, message}; `message`: {role, parts}; `artifact`: {id, name, mime_type}; `complete`: {status, output}; `error`: {status, error}. */
  data: Record<string, unknown>;
  created_at: string;
}

export interface CreateTaskInput {
  skill_id: string;
  input: Record<string, unknown>;
  priority?: number;
  /** The A2A contextId the task belongs to; a new one when absent. */
  context_id?: string;
}

export interface TaskFilter {
  status?: TaskStatus;
  agent_id?: string;
  context_id?: string;
  limit: number;
  offset: number;
}

/** Tasks: each one run of its agent's pipeline. Implemented by tasks/service.ts. */
export interface TaskService {
  /** Throws agent_not_found, agent_disabled, skill_not_found, invalid_input, rate_limited, budget_exceeded. */
  create(accountId: string, agentId: string, input: CreateTaskInput): Promise<TaskView>;
  /** Throws task_not_found. */
  get(accountId: string, taskId: string): Promise<TaskView>;
  list(accountId: string, filter: TaskFilter): Promise<{ tasks: TaskView[]; total: number; limit: number; offset: number }>;
  /** A user message, written to run state `task_reply`: answers a task in `input_needed` (approves its waiting stage; a data part `{"decision":"reject"}` rejects it); to a pending or running task it is only stored; to an ended task 409. */
  sendMessage(accountId: string, taskId: string, parts: Part[]): Promise<MessageView>;
  messages(accountId: string, taskId: string): Promise<MessageView[]>;
  /** Moves the task (and stops its run) to `canceled` with `status_message` = reason; 409 when it already ended. */
  cancel(accountId: string, taskId: string, reason: string): Promise<TaskView>;
  /** The task's event log after `afterSequence`, oldest first. */
  events(accountId: string, taskId: string, afterSequence: number, limit: number): Promise<TaskEvent[]>;
  /** An artifact's bytes (read from the run's state). */
  artifact(accountId: string, taskId: string, artifactId: string): Promise<{ view: ArtifactView; content: Buffer }>;
}

/** Task webhook event names (POST /v1/a2a/webhooks `events`). */
export const TASK_WEBHOOK_EVENTS = ['task.created', 'task.running', 'task.input_needed', 'task.completed', 'task.failed', 'task.canceled'] as const;
export type TaskWebhookEvent = (typeof TASK_WEBHOOK_EVENTS)[number];

/** A task's status changed: published inside the transaction that changed it. */
export interface TaskChange {
  type: TaskWebhookEvent;
  accountId: string;
  task: TaskView;
  /** ISO 8601. */
  occurredAt: string;
}

/** Receives every task status change in its transaction (task webhooks, A2A push notifications write outbox rows there). */
export interface TaskChangePublisher {
  publish(trx: Tx, change: TaskChange): Promise<void>;
}
