// The shape of a saved pipeline definition, as validated: what the engine reads.
import type { StageType } from '../stages/contract.js';

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

export interface StageDefinition {
  name: string;
  type: StageType;
  command?: string;
  template?: string;
  timeout?: string;
  retry?: RetryPolicy;
  on_failure?: 'stop' | 'continue';
  depends_on?: string[];
  condition?: StageCondition;
  env?: Record<string, string>;
  config?: Record<string, unknown>;
}

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
