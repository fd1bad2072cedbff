// Pure scheduling decisions over one run's stages: which waiting stages may start or are skipped, how
// long a retry waits, and when the run is over. GitHub Actions is the reference: a stage runs when all
// its dependencies succeeded; a failed, skipped or canceled dependency skips it, unless its condition
// asks for `on_failure` (any dependency failed). `if` (CEL) must also hold. No I/O here.
import { evaluateExpression, type ExpressionScope } from '../definition/expressions.js';
import { parseDurationMs } from '../definition/duration.js';
import type { PipelineDefaults, StageDefinition } from '../definition/types.js';

export const TERMINAL_STAGE_STATUSES = ['succeeded', 'failed', 'skipped', 'canceled'] as const;
export const DEFAULT_STAGE_TIMEOUT_MS = 10 * 60_000;
const DEFAULT_BACKOFF_MS = 1000;
const DEFAULT_MAX_BACKOFF_MS = 5 * 60_000;

export function isTerminal(status: string): boolean {
  return (TERMINAL_STAGE_STATUSES as readonly string[]).includes(status);
}

export interface StageSnapshot {
  name: string;
  status: string;
  exit_code: number | null;
  attempt: number;
}

export type Readiness = { decision: 'wait' } | { decision: 'start' } | { decision: 'skip'; reason: string };

/** What to do with a `waiting` stage now; `scope` is built lazily because it reads state. */
export function readiness(stage: StageDefinition, byName: Map<string, StageSnapshot>, scope: () => ExpressionScope): Readiness {
  const dependencies = (stage.depends_on ?? []).map((name) => byName.get(name)!);
  if (dependencies.some((dependency) => !isTerminal(dependency.status))) return { decision: 'wait' };
  const failed = dependencies.filter((dependency) => dependency.status === 'failed').map((d) => d.name);
  const notSucceeded = dependencies.filter((dependency) => dependency.status !== 'succeeded').map((d) => d.name);
  if (stage.condition?.on_failure) {
    if (failed.length === 0) return { decision: 'skip', reason: 'condition.on_failure: no dependency failed' };
  } else if (notSucceeded.length > 0) {
    return { decision: 'skip', reason: `dependency ${notSucceeded.join(', ')} did not succeed` };
  }
  if (stage.condition?.if !== undefined) {
    let holds: boolean;
    try {
      holds = evaluateExpression(stage.condition.if, scope());
    } catch (error) {
      return { decision: 'skip', reason: `condition.if could not be evaluated: ${(error as Error).message}` };
    }
    if (!holds) return { decision: 'skip', reason: 'condition.if is false' };
  }
  return { decision: 'start' };
}

export interface EffectiveStage {
  template: string | undefined;
  timeoutMs: number;
  onFailure: 'stop' | 'continue';
  maxAttempts: number;
  backoffMs: number;
  maxBackoffMs: number;
}

/** The stage's settings with the pipeline defaults filled in. */
export function effectiveStage(stage: StageDefinition, defaults: PipelineDefaults): EffectiveStage {
  const retry = { ...defaults.retry, ...stage.retry };
  const timeout = stage.timeout ?? defaults.timeout;
  return {
    template: stage.template ?? defaults.template,
    timeoutMs: timeout ? parseDurationMs(timeout)! : DEFAULT_STAGE_TIMEOUT_MS,
    onFailure: stage.on_failure ?? defaults.on_failure ?? 'stop',
    maxAttempts: retry.max_attempts ?? 1,
    backoffMs: retry.backoff ? parseDurationMs(retry.backoff)! : DEFAULT_BACKOFF_MS,
    maxBackoffMs: retry.max_backoff ? parseDurationMs(retry.max_backoff)! : Math.max(DEFAULT_MAX_BACKOFF_MS, retry.backoff ? parseDurationMs(retry.backoff)! : 0),
  };
}

/** Delay before the attempt after `failures` failed ones: backoff, 2×, 4×, … capped at max_backoff. */
export function retryDelayMs(settings: EffectiveStage, failures: number): number {
  return Math.min(settings.backoffMs * 2 ** Math.max(0, failures - 1), settings.maxBackoffMs);
}

/** Null while any stage is unfinished; otherwise the run's final status. */
export function finalRunStatus(stages: { status: string; failedRun: boolean }[]): 'succeeded' | 'failed' | null {
  if (stages.some((stage) => !isTerminal(stage.status))) return null;
  return stages.some((stage) => stage.failedRun) ? 'failed' : 'succeeded';
}
