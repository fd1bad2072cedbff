// The values columns with a closed set may hold (statuses, kinds, alert types), as const lists and their
// unions: core/db/schema.ts types its columns with them, so queries are checked. Each feature re-exports
// its own from the module a reader looks in (pipelines/engine/statuses.ts, snapshots/contract.ts, …);
// they live here because the schema below every feature may not import features.

/** An account's plan (accounts.plan); billing/plans.ts holds what each allows. */
export type Plan = 'free' | 'pro' | 'team' | 'enterprise';

export const ALERT_TYPES = [
  'budget_warning',
  'budget_critical',
  'budget_exceeded',
  'trust_low',
  'trust_critical',
  'sandbox_error',
  'idle_timeout',
  'quota_warning',
  'quota_exceeded',
  'payment_failed',
] as const;
export type AlertType = (typeof ALERT_TYPES)[number];

export const ALERT_SEVERITIES = ['info', 'warning', 'error', 'critical'] as const;
export type AlertSeverity = (typeof ALERT_SEVERITIES)[number];

export const PIPELINE_STATUSES = ['active', 'archived'] as const;
export type PipelineStatus = (typeof PIPELINE_STATUSES)[number];

export const RUN_STATUSES = ['pending', 'running', 'paused', 'succeeded', 'failed', 'canceled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const STAGE_STATUSES = ['pending', 'waiting', 'running', 'paused_approval', 'succeeded', 'failed', 'skipped', 'canceled'] as const;
export type StageStatus = (typeof STAGE_STATUSES)[number];

/** `lost`: its worker stopped renewing the lease; `interrupted`: the server shut down during it. */
export const ATTEMPT_STATUSES = ['running', 'succeeded', 'failed', 'canceled', 'lost', 'interrupted'] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];

export const SESSION_STATUSES = ['active', 'completed', 'failed', 'timeout'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** `manual` (POST …/snapshots) or `pause` (taken automatically when the sandbox was paused). */
export const SNAPSHOT_KINDS = ['manual', 'pause'] as const;
export type SnapshotKind = (typeof SNAPSHOT_KINDS)[number];

export const SNAPSHOT_STATUSES = ['creating', 'completed', 'failed'] as const;
export type SnapshotStatus = (typeof SNAPSHOT_STATUSES)[number];

export const DELIVERY_STATUSES = ['pending', 'delivering', 'delivered', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export type EvalStatus = 'passed' | 'failed' | 'errored';

export type SandboxStatus = 'creating' | 'running' | 'paused' | 'restoring' | 'error' | 'destroyed';
export const SANDBOX_STATUSES: readonly SandboxStatus[] = ['creating', 'running', 'paused', 'restoring', 'error', 'destroyed'];

/** An A2A task (a2a_tasks.status): `pending` on creation, then as its run goes. */
export const TASK_STATUSES = ['pending', 'running', 'input_needed', 'completed', 'failed', 'canceled'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** The task stream's event names (a2a_task_events.kind). */
export const TASK_EVENT_KINDS = ['status', 'progress', 'message', 'artifact', 'complete', 'error'] as const;
export type TaskEventKind = (typeof TASK_EVENT_KINDS)[number];

export const MESSAGE_ROLES = ['user', 'agent'] as const;
export type MessageRole = (typeof MESSAGE_ROLES)[number];
