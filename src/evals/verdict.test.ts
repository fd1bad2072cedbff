import { describe, expect, it } from 'vitest';
import { compareWithBaseline, summarizeRun } from './verdict.js';

describe('summarizeRun', () => {
  it('computes pass rate, mean score and total cost', () => {
    expect(
      summarizeRun([
        { status: 'passed', score: 1, cost_usd: 0.1 },
        { status: 'failed', score: 0.5, cost_usd: 0.2 },
        { status: 'passed', score: 1, cost_usd: 0 },
        { status: 'failed', score: 0, cost_usd: 0 },
      ]),
    ).toEqual({ status: 'failed', pass_rate: 0.5, score: 0.625, cost_usd: 0.3 });
  });

  it('is errored when any scenario errored, passed only when all passed', () => {
    expect(summarizeRun([{ status: 'passed', score: 1, cost_usd: 0 }]).status).toBe('passed');
    expect(
      summarizeRun([
        { status: 'passed', score: 1, cost_usd: 0 },
        { status: 'errored', score: 0, cost_usd: 0 },
      ]).status,
    ).toBe('errored');
  });
});

describe('compareWithBaseline', () => {
  it('uses the run as its own baseline when there is no history', () => {
    expect(compareWithBaseline(0.4, [], 0.1)).toEqual({ baseline_score: 0.4, baseline_count: 0, score_delta: 0, is_regression: false, regression_pct: 0 });
  });

  it('averages the previous scores and reports the drop', () => {
    expect(compareWithBaseline(0.6, [0.8, 1, 0.9], 0.1)).toEqual({ baseline_score: 0.9, baseline_count: 3, score_delta: -0.3, is_regression: true, regression_pct: 33.3333 });
  });

  it('does not call a drop of exactly the threshold a regression', () => {
    expect(compareWithBaseline(0.6, [0.7], 0.1).is_regression).toBe(false);
    expect(compareWithBaseline(0.59, [0.7], 0.1).is_regression).toBe(true);
  });

  it('reports an improvement as a negative regression_pct', () => {
    expect(compareWithBaseline(1, [0.5], 0.1)).toMatchObject({ score_delta: 0.5, is_regression: false, regression_pct: -100 });
  });
});
