// The statuses a pipeline, a run, a run's stage and a stage attempt can be in: the columns' types and the
// values the API documents. engine/transitions.ts is the only writer of run and stage status.
export { ATTEMPT_STATUSES, PIPELINE_STATUSES, RUN_STATUSES, STAGE_STATUSES, type AttemptStatus, type PipelineStatus, type RunStatus, type StageStatus } from '../../core/db/column-values.js';
