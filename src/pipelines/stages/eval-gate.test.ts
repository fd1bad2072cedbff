import { describe, expect, it } from 'vitest';
import { compareWithBaseline } from '../../evals/verdict.js';
import { evalGateResult } from './eval-gate.js';

describe('evalGateResult', () => {
  const at = '2026-11-23T00:00:00.000Z';
  const run = { status: 'failed' as const, pass_rate: 0.5, score: 0.7, cost_usd: 0.02 };

  it('fills every field and defaults min_pass_rate to 1', () => {
    const gate = evalGateResult(run, compareWithBaseline(0.7, [], 0.1), {}, at);
    expect(gate).toMatchObject({ passed: false, evaluated_at: at, score: 0.7, total_cost: 0.02, baseline_score: 0.7, baseline_count: 0, score_delta: 0, is_regression: false, regression_pct: 0 });
    expect(gate.passed_checks.map((c) => c.type)).toEqual(['eval_status']);
    expect(gate.failed_checks).toEqual([{ type: 'min_pass_rate', expected: '>= 1', actual: '0.5', passed: false, message: 'pass rate 0.5 is below the minimum 1' }]);
    expect(gate.message).toBe('pass rate 0.5 is below the minimum 1');
  });

  it('passes with a lower min_pass_rate and checks cost and regression when asked', () => {
    const gate = evalGateResult(run, compareWithBaseline(0.7, [0.75], 0.1), { min_pass_rate: 0.5, max_cost_usd: 0.05, fail_on_regression: true }, at);
    expect(gate.passed).toBe(true);
    expect(gate.passed_checks.map((c) => c.type)).toEqual(['eval_status', 'min_pass_rate', 'max_cost', 'regression']);
    expect(gate.passed_checks.every((c) => c.message === undefined)).toBe(true);
  });

  it('fails max_cost and regression with messages', () => {
    const gate = evalGateResult(run, compareWithBaseline(0.7, [1], 0.1), { min_pass_rate: 0, max_cost_usd: 0.01, fail_on_regression: true, regression_threshold: 0.2 }, at);
    expect(gate.failed_checks.map((c) => c.type)).toEqual(['max_cost', 'regression']);
    expect(gate.failed_checks[1]).toMatchObject({ expected: 'score drop <= 0.2', actual: 'drop 0.3 from baseline 1' });
    expect(gate.regression_pct).toBe(30);
  });

  it('fails eval_status when the run errored', () => {
    const gate = evalGateResult({ status: 'errored', pass_rate: 1, score: 1, cost_usd: 0 }, compareWithBaseline(1, [], 0.1), {}, at, 'no sandbox');
    expect(gate.failed_checks).toEqual([{ type: 'eval_status', expected: 'passed or failed', actual: 'errored', passed: false, message: 'the eval run errored: no sandbox' }]);
  });
});
