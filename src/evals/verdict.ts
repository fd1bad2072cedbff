// The arithmetic of an eval run: how scenario results add up to a run's pass rate, score and status,
// and how a run compares with its baseline and the eval stage's limits to form the spec's `gate_result`.
// docs/evals.md states every formula here.
import type { GateCheck, GateResult } from '../pipelines/stages/contract.js';

export type EvalStatus = 'passed' | 'failed' | 'errored';

export interface ScenarioRunSummary {
  status: EvalStatus;
  score: number;
  cost_usd: number;
}

export interface EvalRunSummary {
  status: EvalStatus;
  pass_rate: number;
  score: number;
  cost_usd: number;
}

export const DEFAULT_BASELINE_COUNT = 5;
export const DEFAULT_REGRESSION_THRESHOLD = 0.1;
export const DEFAULT_MIN_PASS_RATE = 1;
/** Float noise (0.7 - 0.6 > 0.1) must not turn a drop of exactly the threshold into a regression. */
const EPSILON = 1e-9;

function round(value: number, decimals = 10): number {
  const factor = 10 ** decimals;
  return Math.round(value * factor) / factor;
}

/** pass_rate = passed / total; score = mean scenario score; cost = sum; errored if any scenario errored. */
export function summarizeRun(scenarios: ScenarioRunSummary[]): EvalRunSummary {
  const total = scenarios.length;
  const passed = scenarios.filter((s) => s.status === 'passed').length;
  const status: EvalStatus = scenarios.some((s) => s.status === 'errored') ? 'errored' : passed === total ? 'passed' : 'failed';
  return {
    status,
    pass_rate: total ? round(passed / total) : 0,
    score: total ? round(scenarios.reduce((sum, s) => sum + s.score, 0) / total) : 0,
    cost_usd: round(scenarios.reduce((sum, s) => sum + s.cost_usd, 0)),
  };
}

export interface BaselineComparison {
  baseline_score: number;
  baseline_count: number;
  score_delta: number;
  is_regression: boolean;
  regression_pct: number;
}

/**
 * `previousScores`: scores of the earlier completed (not errored) runs of the same scenario or suite,
 * newest first, at most baseline_count of them. Without any, the run is its own baseline.
 */
export function compareWithBaseline(score: number, previousScores: number[], regressionThreshold: number): BaselineComparison {
  if (!previousScores.length) return { baseline_score: score, baseline_count: 0, score_delta: 0, is_regression: false, regression_pct: 0 };
  const baseline = previousScores.reduce((sum, s) => sum + s, 0) / previousScores.length;
  const drop = baseline - score;
  return {
    baseline_score: round(baseline),
    baseline_count: previousScores.length,
    score_delta: round(score - baseline),
    is_regression: drop > regressionThreshold + EPSILON,
    regression_pct: baseline > 0 ? round((drop / baseline) * 100, 4) : 0,
  };
}

export interface EvalLimits {
  min_pass_rate?: number;
  max_cost_usd?: number;
  fail_on_regression?: boolean;
  regression_threshold?: number;
}

function check(type: GateCheck['type'], expected: string, actual: string, passed: boolean, message: string): GateCheck {
  return passed ? { type, expected, actual, passed } : { type, expected, actual, passed, message };
}

/** Applies the stage's limits to a run and its baseline comparison; every gate_result field is filled. */
export function evalGateResult(run: EvalRunSummary, comparison: BaselineComparison, limits: EvalLimits, evaluatedAt: string, error?: string): GateResult {
  const minPassRate = limits.min_pass_rate ?? DEFAULT_MIN_PASS_RATE;
  const threshold = limits.regression_threshold ?? DEFAULT_REGRESSION_THRESHOLD;
  const checks: GateCheck[] = [
    check('eval_status', 'passed or failed', run.status, run.status !== 'errored', `the eval run errored${error ? `: ${error}` : ''}`),
    check('min_pass_rate', `>= ${minPassRate}`, String(run.pass_rate), run.pass_rate >= minPassRate - EPSILON, `pass rate ${run.pass_rate} is below the minimum ${minPassRate}`),
  ];
  if (limits.max_cost_usd !== undefined) {
    checks.push(check('max_cost', `<= ${limits.max_cost_usd}`, String(run.cost_usd), run.cost_usd <= limits.max_cost_usd + EPSILON, `cost ${run.cost_usd} USD exceeds the maximum ${limits.max_cost_usd} USD`));
  }
  if (limits.fail_on_regression) {
    const actual = comparison.baseline_count ? `drop ${round(-comparison.score_delta, 6)} from baseline ${comparison.baseline_score}` : 'no baseline yet';
    checks.push(check('regression', `score drop <= ${threshold}`, actual, !comparison.is_regression, `score ${run.score} regressed ${comparison.regression_pct}% from the baseline ${comparison.baseline_score} of the last ${comparison.baseline_count} runs (allowed drop ${threshold})`));
  }
  const failed = checks.filter((c) => !c.passed);
  return {
    passed: failed.length === 0,
    passed_checks: checks.filter((c) => c.passed),
    failed_checks: failed,
    message: failed.length ? failed.map((c) => c.message).join('; ') : `eval passed: pass rate ${run.pass_rate}, score ${run.score}, cost ${run.cost_usd} USD`,
    evaluated_at: evaluatedAt,
    score: run.score,
    total_cost: run.cost_usd,
    ...comparison,
  };
}
