// The arithmetic of an eval run: how scenario results add up to a run's pass rate, score and status,
// and how a run compares with its baseline (the eval stage turns both into a `gate_result`:
// pipelines/stages/eval-gate.ts). docs/evals.md states every formula here.
export type { EvalStatus } from '../core/db/column-values.js';
import type { EvalStatus } from '../core/db/column-values.js';

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
/** Float noise (0.7 - 0.6 > 0.1) must not turn a drop of exactly the threshold into a regression. */
export const EPSILON = 1e-9;

export function round(value: number, decimals = 10): number {
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
