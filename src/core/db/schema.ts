// Row types of every table, as Kysely sees them. Timestamps are ISO strings, booleans 0/1 integers,
// JSON documents text: the one representation both SQLite and PostgreSQL store the same way.
// Longer than 350 lines: one short interface per table and the Database map Kysely and the migrations
// type against; no logic, and splitting it by feature would scatter the one picture of the schema.
// Columns with a closed set of values (status, plan, scope, kind) have the union as their type, so queries are checked.
import type { Generated } from 'kysely';
import type { Scope } from '../access.js';
import type { BillingQuotaMarksTable, BillingUsageDaysTable, BillingUsagePiecesTable } from './billing-usage-tables.js';
import type { A2aAgentsTable, A2aPushConfigsTable, A2aTaskArtifactsTable, A2aTaskEventsTable, A2aTaskMessagesTable, A2aTasksTable, A2aWebhooksTable } from './a2a-tables.js';
import type { BillingPlanRequestsTable, BillingSubscriptionsTable } from './billing-tables.js';
import type { BillingProviderEventsTable } from './billing-provider-tables.js';
import type { NodesTable } from './node-tables.js';
import type {
  Plan,
  AlertSeverity,
  AlertType,
  AttemptStatus,
  DeliveryStatus,
  EvalStatus,
  PipelineStatus,
  RunStatus,
  SandboxStatus,
  SessionStatus,
  SnapshotKind,
  SnapshotStatus,
  StageStatus,
} from './column-values.js';

export interface AccountsTable {
  id: string;
  email: string;
  email_normalized: string;
  name: string | null;
  password_hash: string;
  plan: Plan;
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  account_id: string;
  name: string;
  scope: Scope;
  display_prefix: string;
  key_hash: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string | null;
  revoked_at: string | null;
}

export interface DashboardSessionsTable {
  id: string;
  account_id: string;
  token_hash: string;
  created_at: string;
  expires_at: string;
}

export interface SandboxesTable {
  id: string;
  account_id: string;
  status: SandboxStatus;
  error: string | null;
  runtime: string;
  template: string;
  cpus: number;
  memory_mb: number;
  disk_gb: number;
  network_mode: string;
  /** JSON array of strings. */
  allowlist: string;
  /** JSON object of strings. */
  env: string;
  ip: string | null;
  repo: string | null;
  repo_branch: string | null;
  repo_commit: string | null;
  repo_subdir: string | null;
  budget: number | null;
  init_script: string | null;
  timeout: number | null;
  /** JSON arrays of strings. */
  packages: string;
  agents: string;
  created_at: string;
  updated_at: string;
  last_activity_at: string;
  destroyed_at: string | null;
  /** Callback URLs given at creation. */
  on_complete: string | null;
  on_budget_exceeded: string | null;
  /** Why a destroyed sandbox was destroyed: `deleted` (DELETE) or `budget_exceeded`. */
  destroyed_reason: string | null;
  /** Budget alerts already raised, as bits: 1 budget_warning, 2 budget_critical. */
  budget_alerts_raised: number;
  /** When the sandbox ended (destroyed or error) and its `on_complete` callback was queued. */
  completed_at: string | null;
  /** The server (PADDOCK_HOST_ID) whose runtime holds the sandbox; null only on rows from before the column. */
  host_id: string | null;
  /** JSON array of account secret names injected as environment variables. */
  secrets: string;
  paused_at: string | null;
  /** 1 when only scopes that read secrets may reach inside: created with secrets or by a pipeline or eval, or restored from a confidential sandbox's snapshot. */
  confidential: number;
}

/** A TCP port inside a sandbox: listening now, or protected ahead of (or between) listening. */
export interface SandboxPortsTable {
  sandbox_id: string;
  port: number;
  /** `http` when the port answered an HTTP request when it was detected, else `tcp`. */
  protocol: string;
  listening: number;
  detected_at: string | null;
  password_hash: string | null;
  protected: number;
  updated_at: string;
}

export interface ServerSettingsTable {
  name: string;
  value: string;
  created_at: string;
}

export interface AlertsTable {
  id: string;
  account_id: string;
  type: AlertType;
  severity: AlertSeverity;
  message: string;
  sandbox_id: string | null;
  /** What the alert is about (`sandbox`, `session`, `run`); one open alert per (type, resource). */
  resource_kind: string;
  resource_id: string;
  /** JSON object. */
  details: string;
  resolved: number;
  resolved_at: string | null;
  created_at: string;
}

export interface AlertRulesTable {
  id: string;
  account_id: string;
  type: AlertType;
  enabled: number;
  threshold: number | null;
  /** JSON array of channel names. */
  channels: string;
  created_at: string;
  updated_at: string;
}

export interface NotificationsTable {
  id: string;
  account_id: string;
  alert_id: string | null;
  type: string;
  severity: string;
  title: string;
  message: string;
  sandbox_id: string | null;
  read: number;
  read_at: string | null;
  created_at: string;
}

export interface NotificationConfigsTable {
  account_id: string;
  email_enabled: number;
  email_address: string | null;
  chat_a_enabled: number;
  chat_a_webhook_url: string | null;
  chat_b_enabled: number;
  chat_b_webhook_url: string | null;
  webhook_enabled: number;
  webhook_url: string | null;
  /** `whsec_` + base64: the Standard Webhooks signing secret. */
  webhook_secret: string;
  created_at: string;
  updated_at: string;
}

/** One outbound delivery (an email, a webhook call): retried with backoff until delivered or given up. */
export interface OutboxTable {
  id: string;
  /** Which handler delivers it, e.g. `notification.webhook`. */
  kind: string;
  account_id: string | null;
  /** The record the delivery was made for (a notification id, a sandbox id). */
  source_id: string | null;
  /** Email address or URL. */
  target: string;
  /** JSON document the handler sends. */
  payload: string;
  /** `pending`, `delivering` (leased by a worker), `delivered`, `failed`. */
  status: DeliveryStatus;
  attempts: number;
  max_attempts: number;
  next_attempt_at: string;
  lease_expires_at: string | null;
  leased_by: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
  delivered_at: string | null;
}

export interface OutboxAttemptsTable {
  delivery_id: string;
  attempt: number;
  worker_id: string;
  started_at: string;
  finished_at: string | null;
  /** `delivered`, `failed`, `abandoned` (the worker stopped mid-attempt), null while running. */
  outcome: string | null;
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
  duration_ms: number | null;
}

/** An agent session. `key` is internal; `id` is what the client named it (unique per account). */
export interface SessionsTable {
  key: string;
  id: string;
  account_id: string;
  /** Exactly one of sandbox_id and pipeline_run_id is set (sessions_owner_check). */
  sandbox_id: string | null;
  /** The run whose timeline this session records. */
  pipeline_run_id: string | null;
  status: SessionStatus;
  agent_type: string | null;
  model: string | null;
  /** bigint: PostgreSQL hands these back as strings. */
  tokens_in: number | string;
  tokens_out: number | string;
  llm_cost_usd: number;
  compute_cost_usd: number;
  trust_score: number;
  /** Trust alerts already raised, as bits: 1 trust_low, 2 trust_critical. */
  trust_alerts_raised: number;
  /** 1 when the score fell and the account's trust rules have not been checked against it yet. */
  trust_alert_pending: number;
  event_count: number;
  llm_call_count: number;
  tool_call_count: number;
  file_op_count: number;
  command_count: number;
  network_count: number;
  error_count: number;
  lifecycle_count: number;
  started_at: string | null;
  last_event_at: string | null;
  ended_at: string | null;
  /** Server time of the last event received: inactivity is measured from it. */
  last_activity_at: string;
  created_at: string;
  updated_at: string;
}

export interface SessionEventsTable {
  session_key: string;
  /** 1, 2, 3 … per session, in the order the server received the events. */
  sequence: number;
  id: string;
  type: string;
  timestamp: string;
  /** JSON: the event's payload. */
  data: string;
  /** JSON: the event's meta, null when empty. */
  meta: string | null;
  /** llm_call only: as sent, or priced from the model table. */
  cost_usd: number | null;
  /** 1 when the client chose `id` (it is then unique per session). */
  client_id: number;
}

export interface SessionFindingsTable {
  session_key: string;
  sequence: number;
  rule: string;
  severity: string;
  weight: number;
  /** Points this finding took off the score: its weight until the rule's cap is reached. */
  penalty: number;
  evidence: string;
  created_at: string;
}

/** One interval a sandbox spent running, at the size it had then; `ended_at` null while it runs. */
export interface SandboxUsageTable {
  id: string;
  sandbox_id: string;
  account_id: string;
  cpus: number;
  memory_mb: number;
  started_at: string;
  ended_at: string | null;
}

export interface PipelinesTable {
  id: string;
  account_id: string;
  name: string;
  status: PipelineStatus;
  version: number;
  created_at: string;
  updated_at: string;
}

export interface PipelineVersionsTable {
  pipeline_id: string;
  version: number;
  description: string;
  /** JSON array of stage definitions. */
  stages: string;
  /** JSON object. */
  defaults: string;
  created_at: string;
}

export interface PipelineRunsTable {
  id: string;
  account_id: string;
  pipeline_id: string;
  pipeline_name: string;
  version: number;
  status: RunStatus;
  trigger: string;
  /** JSON `{env, repo, branch}`. */
  input: string;
  error: string | null;
  event_count: number;
  created_at: string;
  started_at: string | null;
  completed_at: string | null;
  updated_at: string;
  /** The run's session; null for runs created before run sessions existed. */
  session_id: string | null;
  /** Higher first when stages wait for a worker (an A2A task's priority; 0 otherwise). Migration 0017. */
  priority: Generated<number>;
}

export interface PipelineRunStagesTable {
  id: string;
  run_id: string;
  position: number;
  name: string;
  type: string;
  status: StageStatus;
  attempt: number;
  failures: number;
  next_attempt_at: string | null;
  lease_owner: string | null;
  lease_expires_at: string | null;
  exit_code: number | null;
  error: string | null;
  /** JSON gate_result. */
  gate_result: string | null;
  cost_usd: number;
  approval_deadline: string | null;
  approval_decision: string | null;
  approval_by: string | null;
  approval_comment: string | null;
  approval_at: string | null;
  started_at: string | null;
  completed_at: string | null;
  duration_ms: number | null;
  updated_at: string;
}

export interface PipelineStageAttemptsTable {
  run_stage_id: string;
  attempt: number;
  worker_id: string;
  status: AttemptStatus;
  exit_code: number | null;
  error: string | null;
  sandbox_id: string | null;
  stdout: string;
  stderr: string;
  started_at: string;
  completed_at: string | null;
}

export interface PipelineRunSandboxesTable {
  sandbox_id: string;
  run_id: string;
  run_stage_id: string;
  attempt: number;
  created_at: string;
}

export interface PipelineRunStateTable {
  run_id: string;
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

export interface PipelineRunEventsTable {
  run_id: string;
  sequence: number;
  type: string;
  stage: string | null;
  /** JSON object. */
  data: string;
  created_at: string;
}

/** One lifecycle event of a sandbox (its timeline, GET /v1/sandboxes/{id}/events). */
export interface SandboxEventsTable {
  id: string;
  sandbox_id: string;
  account_id: string;
  /** 1, 2, 3… per sandbox, in commit order. */
  sequence: number;
  type: string;
  /** The status edge; both null for events that change no status (budget thresholds). */
  from_status: string | null;
  to_status: string | null;
  /** JSON object. */
  data: string;
  created_at: string;
}

export interface Database {
  accounts: AccountsTable;
  api_keys: ApiKeysTable;
  dashboard_sessions: DashboardSessionsTable;
  sandboxes: SandboxesTable;
  sandbox_events: SandboxEventsTable;
  sandbox_ports: SandboxPortsTable;
  server_settings: ServerSettingsTable;
  alerts: AlertsTable;
  alert_rules: AlertRulesTable;
  notifications: NotificationsTable;
  notification_configs: NotificationConfigsTable;
  outbox: OutboxTable;
  outbox_attempts: OutboxAttemptsTable;
  webhook_endpoints: WebhookEndpointsTable;
  sessions: SessionsTable;
  session_events: SessionEventsTable;
  session_findings: SessionFindingsTable;
  sandbox_usage: SandboxUsageTable;
  billing_usage_days: BillingUsageDaysTable;
  billing_usage_pieces: BillingUsagePiecesTable;
  billing_quota_marks: BillingQuotaMarksTable;
  eval_scenarios: EvalScenariosTable;
  eval_suites: EvalSuitesTable;
  eval_results: EvalResultsTable;
  eval_sandboxes: EvalSandboxesTable;
  pipelines: PipelinesTable;
  pipeline_versions: PipelineVersionsTable;
  pipeline_runs: PipelineRunsTable;
  pipeline_run_stages: PipelineRunStagesTable;
  pipeline_stage_attempts: PipelineStageAttemptsTable;
  pipeline_run_state: PipelineRunStateTable;
  pipeline_run_sandboxes: PipelineRunSandboxesTable;
  pipeline_run_events: PipelineRunEventsTable;
  snapshots: SnapshotsTable;
  account_secrets: AccountSecretsTable;
  idempotency_keys: IdempotencyKeysTable;
  a2a_agents: A2aAgentsTable;
  a2a_tasks: A2aTasksTable;
  a2a_task_events: A2aTaskEventsTable;
  a2a_task_messages: A2aTaskMessagesTable;
  a2a_task_artifacts: A2aTaskArtifactsTable;
  a2a_webhooks: A2aWebhooksTable;
  a2a_push_configs: A2aPushConfigsTable;
  billing_subscriptions: BillingSubscriptionsTable;
  billing_plan_requests: BillingPlanRequestsTable;
  billing_provider_events: BillingProviderEventsTable;
  nodes: NodesTable;
}

export interface EvalScenariosTable {
  id: string;
  account_id: string;
  name: string;
  description: string;
  template: string;
  command: string;
  /** JSON: string key/value environment of the command. */
  env: string;
  network_mode: string;
  timeout_seconds: number;
  /** JSON: the weighted checks (see src/evals/checks.ts). */
  checks: string;
  pass_threshold: number;
  created_at: string;
  updated_at: string;
}

export interface EvalSuitesTable {
  id: string;
  account_id: string;
  name: string;
  description: string;
  /** JSON: scenario ids in run order. */
  scenario_ids: string;
  created_at: string;
  updated_at: string;
}

export interface EvalResultsTable {
  id: string;
  account_id: string;
  scenario_id: string | null;
  suite_id: string | null;
  /** `passed`, `failed` or `errored`. */
  status: EvalStatus;
  pass_rate: number;
  score: number;
  cost_usd: number;
  /** JSON: one entry per scenario run (score, status, checks, exit code, output excerpt). */
  scenario_results: string;
  /** `api` or `pipeline`. */
  source: string;
  pipeline_run_id: string | null;
  stage_name: string | null;
  duration_ms: number;
  created_at: string;
}

export interface EvalSandboxesTable {
  sandbox_id: string;
  account_id: string;
  created_at: string;
}

/** A point-in-time copy of a sandbox's filesystem changes, kept in the snapshot store under `storage_key`. */
export interface SnapshotsTable {
  id: string;
  account_id: string;
  sandbox_id: string;
  /** The sandbox's template: a snapshot holds changes relative to it, so it restores only onto the same one. */
  template: string;
  name: string;
  kind: SnapshotKind;
  status: SnapshotStatus;
  error: string | null;
  size_bytes: number | string;
  storage_key: string;
  created_at: string;
  completed_at: string | null;
}

export interface AccountSecretsTable {
  account_id: string;
  name: string;
  ciphertext: string;
  created_at: string;
  updated_at: string;
}

export interface IdempotencyKeysTable {
  account_id: string;
  key: string;
  fingerprint: string;
  method: string;
  path: string;
  /** Null while the first request is running. */
  response_status: number | null;
  /** JSON object of header name to value. */
  response_headers: string | null;
  /** Sealed (AES-256-GCM) response body. */
  response_body: string | null;
  created_at: string;
  completed_at: string | null;
  expires_at: string;
}

export interface WebhookEndpointsTable {
  id: string;
  account_id: string;
  url: string;
  /** JSON array of event types, or `["*"]` for every type. */
  events: string;
  /** Standard Webhooks `whsec_…` signing secret. */
  secret: string;
  description: string | null;
  enabled: number;
  created_at: string;
  updated_at: string;
}
