// The statuses a pipeline, a run, a run's stage and a stage attempt can be in: the columns' types and the
// values the API documents. engine/transitions.ts is the only writer of run and stage status.

export const PIPELINE_STATUSES = ['active', 'archived'] as const;
export type PipelineStatus = (typeof PIPELINE_STATUSES)[number];

export const RUN_STATUSES = ['pending', 'running', 'paused', 'succeeded', 'failed', 'canceled'] as const;
export type RunStatus = (typeof RUN_STATUSES)[number];

export const STAGE_STATUSES = ['pending', 'waiting', 'running', 'paused_approval', 'succeeded', 'failed', 'skipped', 'canceled'] as const;
export type StageStatus = (typeof STAGE_STATUSES)[number];

/** `lost`: its worker stopped renewing the lease; `interrupted`: the server shut down during it. */
export const ATTEMPT_STATUSES = ['running', 'succeeded', 'failed', 'canceled', 'lost', 'interrupted'] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];
