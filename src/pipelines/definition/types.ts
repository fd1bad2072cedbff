// The shape of a saved pipeline definition, as validated: what the engine reads. A stage's `config` is
// typed by its `type`; before validation (a request body) it is a `StageDraft` with any config.
import type { StageType } from '../stages/contract.js';
import type { ApprovalChannel } from './approval-channels.js';

export interface RetryPolicy {
  max_attempts?: number;
  backoff?: string;
  max_backoff?: string;
}

export interface StageCondition {
  on_success?: boolean;
  on_failure?: boolean;
  if?: string;
}

export type ApprovalConfig = {
  message?: string;
  channels?: ApprovalChannel[];
  /** A duration string. */
  sla_timeout?: string;
  auto_decision?: 'reject' | 'approve';
};

export type GateConfig = {
  trust_above?: number;
  cost_below?: number;
  expression?: string;
  state_key?: string;
  fail_fast?: boolean;
};

/** Exactly one of the four targets is set. */
export type EvalConfig = {
  scenario_id?: string;
  scenario_name?: string;
  suite_id?: string;
  suite_name?: string;
  min_pass_rate?: number;
  max_cost_usd?: number;
  fail_on_regression?: boolean;
  baseline_count?: number;
  regression_threshold?: number;
  store_result_in_state?: boolean;
  result_state_key?: string;
};

export type A2aConfig = {
  agent_url: string;
  skill_id: string;
  prompt: string;
  max_cost_usd?: number;
  /** The name of an account secret whose value is sent as `Authorization: Bearer <value>`. */
  auth_secret?: string;
};

/** The config each stage type takes (command stages take none: the command is a stage field). */
export interface StageConfigs {
  command: Record<string, never>;
  await_approval: ApprovalConfig;
  gate: GateConfig;
  eval: EvalConfig;
  a2a: A2aConfig;
}

interface StageFields {
  name: string;
  command?: string;
  template?: string;
  timeout?: string;
  retry?: RetryPolicy;
  on_failure?: 'stop' | 'continue';
  depends_on?: string[];
  condition?: StageCondition;
  env?: Record<string, string>;
}

/** A validated stage: `type` says which config it has. */
export type StageDefinition = { [T in StageType]: StageFields & { type: T; config?: StageConfigs[T] } }[StageType];

/** A stage as a request sends it, before validateDefinition checks its config against its type. */
export type StageDraft = StageFields & { type: StageType; config?: Record<string, unknown> };

export interface PipelineDefaults {
  template?: string;
  on_failure?: 'stop' | 'continue';
  retry?: RetryPolicy;
  timeout?: string;
}

export interface PipelineDefinition {
  description: string;
  stages: StageDefinition[];
  defaults: PipelineDefaults;
}

export interface PipelineDraft {
  description: string;
  stages: StageDraft[];
  defaults: PipelineDefaults;
}

/** The config of `stage` when it is of `type` (an approval's SLA, a gate's fail_fast…); undefined otherwise. */
export function configOf<T extends StageType>(stage: StageDefinition | undefined, type: T): StageConfigs[T] | undefined {
  return stage?.type === type ? (stage.config as StageConfigs[T] | undefined) : undefined;
}
