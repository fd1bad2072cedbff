// The eval stage's `gate_result`: the stage's limits (min pass rate, max cost, regression) applied to an
// eval run and its baseline comparison. docs/evals.md states every formula here.
import { DEFAULT_REGRESSION_THRESHOLD, EPSILON, round, type BaselineComparison, type EvalRunSummary } from '../../evals/verdict.js';
import type { GateCheck, GateResult } from './contract.js';

export const DEFAULT_MIN_PASS_RATE = 1;

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
    checks.push(
      check('max_cost', `<= ${limits.max_cost_usd}`, String(run.cost_usd), run.cost_usd <= limits.max_cost_usd + EPSILON, `cost ${run.cost_usd} USD exceeds the maximum ${limits.max_cost_usd} USD`),
    );
  }
  if (limits.fail_on_regression) {
    const actual = comparison.baseline_count ? `drop ${round(-comparison.score_delta, 6)} from baseline ${comparison.baseline_score}` : 'no baseline yet';
    checks.push(
      check(
        'regression',
        `score drop <= ${threshold}`,
        actual,
        !comparison.is_regression,
        `score ${run.score} regressed ${comparison.regression_pct}% from the baseline ${comparison.baseline_score} of the last ${comparison.baseline_count} runs (allowed drop ${threshold})`,
      ),
    );
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
