import { describe, expect, it } from 'vitest';
import { thresholdProblem } from './rules.js';

describe('thresholdProblem', () => {
  it('accepts fractions of the budget for budget rules, inclusive', () => {
    for (const value of [0, 0.5, 0.8, 1]) expect(thresholdProblem('budget_warning', value)).toBeNull();
    expect(thresholdProblem('budget_exceeded', 1.01)).toMatch(/between 0.0 and 1.0/);
    expect(thresholdProblem('budget_critical', -0.1)).toMatch(/between 0.0 and 1.0/);
  });

  it('accepts trust scores 0-100 for trust rules', () => {
    expect(thresholdProblem('trust_low', 70)).toBeNull();
    expect(thresholdProblem('trust_critical', 100)).toBeNull();
    expect(thresholdProblem('trust_low', 101)).toMatch(/between 0 and 100/);
  });

  it('refuses a threshold on rules that have none, and a missing one on rules that need it', () => {
    expect(thresholdProblem('sandbox_error', 0.5)).toMatch(/not used/);
    expect(thresholdProblem('idle_timeout', null)).toBeNull();
    expect(thresholdProblem('trust_low', null)).toMatch(/required/);
  });
});
