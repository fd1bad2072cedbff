// The `eval` stage: runs the scenario or suite its config names (in sandboxes, through the eval
// service), compares the result with the baseline of earlier runs, applies the stage's limits and
// reports the spec's gate_result; optionally writes the result into the run's state.
import type { EvalService, EvalTarget } from '../../evals/service.js';
import { compareWithBaseline, DEFAULT_BASELINE_COUNT, DEFAULT_REGRESSION_THRESHOLD, type EvalRunSummary } from '../../evals/verdict.js';
import type { EvalResultView } from '../../evals/views.js';
import { abortReason } from './abort-reason.js';
import type { StageContext, StageExecutor, StageOutcome } from './contract.js';
import { evalGateResult } from './eval-gate.js';

export const DEFAULT_RESULT_STATE_KEY = 'eval_result';
const TARGET_FIELDS = ['scenario_id', 'scenario_name', 'suite_id', 'suite_name'] as const;

export interface EvalStageConfig {
  target: EvalTarget;
  min_pass_rate?: number;
  max_cost_usd?: number;
  fail_on_regression: boolean;
  baseline_count: number;
  regression_threshold: number;
  store_result_in_state: boolean;
  result_state_key: string;
}

export interface EvalStageDeps {
  evals: Pick<EvalService, 'resolve' | 'baselineScores' | 'run'>;
}

type Parsed = { config: EvalStageConfig } | { problem: string };

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** Reads an eval stage config; `problem` names the field (`config.min_pass_rate must be …`). Usable at save time. */
export function parseEvalStageConfig(raw: Record<string, unknown>): Parsed {
  const named = TARGET_FIELDS.filter((field) => raw[field] !== undefined);
  if (named.length !== 1) return { problem: `config must name exactly one of ${TARGET_FIELDS.join(', ')}${named.length ? ` (got ${named.join(', ')})` : ''}` };
  const field = named[0];
  const value = raw[field];
  if (typeof value !== 'string' || !value) return { problem: `config.${field} must be a non-empty string` };
  const target: EvalTarget = field === 'scenario_id' ? { scenarioId: value } : field === 'scenario_name' ? { scenarioName: value } : field === 'suite_id' ? { suiteId: value } : { suiteName: value };
  const fraction = (name: string) => raw[name] === undefined || (isNumber(raw[name]) && raw[name] >= 0 && raw[name] <= 1);
  if (!fraction('min_pass_rate')) return { problem: 'config.min_pass_rate must be a number from 0 to 1' };
  if (!fraction('regression_threshold')) return { problem: 'config.regression_threshold must be a number from 0 to 1' };
  if (raw.max_cost_usd !== undefined && !(isNumber(raw.max_cost_usd) && raw.max_cost_usd >= 0)) return { problem: 'config.max_cost_usd must be a number >= 0' };
  if (raw.baseline_count !== undefined && !(Number.isInteger(raw.baseline_count) && (raw.baseline_count as number) >= 1 && (raw.baseline_count as number) <= 100))
    return { problem: 'config.baseline_count must be an integer from 1 to 100' };
  for (const flag of ['fail_on_regression', 'store_result_in_state']) {
    if (raw[flag] !== undefined && typeof raw[flag] !== 'boolean') return { problem: `config.${flag} must be a boolean` };
  }
  const key = raw.result_state_key;
  if (key !== undefined && !(typeof key === 'string' && key.length >= 1 && key.length <= 256)) return { problem: 'config.result_state_key must be a string of 1 to 256 characters' };
  return {
    config: {
      target,
      min_pass_rate: raw.min_pass_rate as number | undefined,
      max_cost_usd: raw.max_cost_usd as number | undefined,
      fail_on_regression: raw.fail_on_regression === true,
      baseline_count: (raw.baseline_count as number | undefined) ?? DEFAULT_BASELINE_COUNT,
      regression_threshold: (raw.regression_threshold as number | undefined) ?? DEFAULT_REGRESSION_THRESHOLD,
      store_result_in_state: raw.store_result_in_state === true,
      result_state_key: (key as string | undefined) ?? DEFAULT_RESULT_STATE_KEY,
    },
  };
}

function describeTarget(target: EvalTarget): string {
  if ('scenarioId' in target) return `scenario ${target.scenarioId}`;
  if ('scenarioName' in target) return `scenario named ${target.scenarioName}`;
  if ('suiteId' in target) return `suite ${target.suiteId}`;
  return `suite named ${target.suiteName}`;
}

export function createEvalStage(deps: EvalStageDeps): StageExecutor {
  return async function runEvalStage(context: StageContext): Promise<StageOutcome> {
    const parsed = parseEvalStageConfig(context.config);
    if ('problem' in parsed) return { status: 'failed', error: parsed.problem };
    const { config } = parsed;
    const target = await deps.evals.resolve(context.accountId, config.target);
    if (!target) return { status: 'failed', error: `eval stage: no ${describeTarget(config.target)} in this account` };
    if (target.kind === 'suite' && !target.scenarios.length) return { status: 'failed', error: `eval stage: suite ${target.suite.name} has no scenarios` };

    const previousScores = await deps.evals.baselineScores(context.accountId, target, config.baseline_count);
    let result: EvalResultView | null;
    try {
      result = await deps.evals.run(context.accountId, target, {
        signal: context.signal,
        maxCostUsd: config.max_cost_usd,
        source: 'pipeline',
        pipelineRunId: context.runId,
        stageName: context.stageName,
      });
    } catch (error) {
      const message = (error as Error).message;
      const errored: EvalRunSummary = { status: 'errored', pass_rate: 0, score: 0, cost_usd: 0 };
      const gate = evalGateResult(errored, compareWithBaseline(0, previousScores, config.regression_threshold), config, new Date().toISOString(), message);
      return { status: 'failed', error: `eval run errored: ${message}`, gate_result: gate };
    }
    if (!result) return { status: 'failed', error: `eval run stopped: ${abortReason(context.signal)}` };

    for (const scenario of result.scenarios as { name: string; status: string; score: number; exit_code: number | null; error: string | null }[]) {
      context.log(
        scenario.status === 'passed' ? 'stdout' : 'stderr',
        `${scenario.name}: ${scenario.status}, score ${scenario.score}, exit code ${scenario.exit_code ?? '-'}${scenario.error ? `, ${scenario.error}` : ''}\n`,
      );
    }
    const comparison = compareWithBaseline(result.score, previousScores, config.regression_threshold);
    const gate = evalGateResult(result, comparison, config, new Date().toISOString());
    context.log('stdout', `${gate.message}\n`);
    if (config.store_result_in_state) {
      await context.state.put(
        config.result_state_key,
        { eval_result_id: result.id, status: result.status, pass_rate: result.pass_rate, score: result.score, cost_usd: result.cost_usd, gate_result: gate, scenarios: result.scenarios },
        { type: 'json' },
      );
    }
    // The eval's sandboxes are not the run's own, so their cost is reported here for the run's total.
    return gate.passed ? { status: 'succeeded', gate_result: gate, cost_usd: result.cost_usd } : { status: 'failed', error: gate.message, gate_result: gate, cost_usd: result.cost_usd };
  };
}
