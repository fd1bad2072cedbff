import { describe, expect, it } from 'vitest';
import { budgetThresholds, decide, msUntilNextThreshold } from './thresholds.js';

const rule = (threshold: number, enabled = true) => ({ enabled, threshold });
const defaults = budgetThresholds(<Parameters<typeof budgetThresholds>[0]>{
  budget_warning: rule(0.8),
  budget_critical: rule(0.95),
  budget_exceeded: rule(1),
  trust_low: rule(70),
  trust_critical: rule(50),
  sandbox_error: { enabled: true, threshold: null },
  idle_timeout: { enabled: true, threshold: null },
});

describe('budget thresholds', () => {
  it('raises nothing below 80 %', () => {
    expect(decide(0.79, 1, defaults, 0)).toEqual({ raise: [], destroy: false });
  });

  it('raises warning at 80 %, then critical at 95 %, each once', () => {
    expect(decide(0.8, 1, defaults, 0)).toEqual({ raise: ['budget_warning'], destroy: false });
    expect(decide(0.9, 1, defaults, 1)).toEqual({ raise: [], destroy: false });
    expect(decide(0.95, 1, defaults, 1)).toEqual({ raise: ['budget_critical'], destroy: false });
  });

  it('raises both in order and destroys when one check jumps past 100 %', () => {
    expect(decide(2, 1, defaults, 0)).toEqual({ raise: ['budget_warning', 'budget_critical'], destroy: true });
  });

  it("follows the account's rule thresholds; a disabled budget_exceeded rule still destroys at 100 %", () => {
    const custom = { ...defaults, budget_warning: { enabled: true, fraction: 0.5 }, exceededFraction: 0.9 };
    expect(decide(0.5, 1, custom, 0).raise).toEqual(['budget_warning']);
    expect(decide(0.9, 1, custom, 1).destroy).toBe(true);
    const disabled = budgetThresholds({ budget_warning: rule(0.8), budget_critical: rule(0.95), budget_exceeded: rule(0.5, false) } as never);
    expect(disabled.exceededFraction).toBe(1);
  });

  it('predicts when the next threshold is crossed at the current rate', () => {
    // 0.01 $/s from 0.70 of a 1 $ budget: warning (0.80) in 10 s.
    expect(msUntilNextThreshold(0.7, 1, 0.01, defaults, 0)).toBeCloseTo(10_000, 6);
    // warning already raised: critical (0.95) in 5 s.
    expect(msUntilNextThreshold(0.9, 1, 0.01, defaults, 1)).toBeCloseTo(5000, 6);
    // a budget smaller than what the next interval costs: the check is due well before the interval.
    expect(msUntilNextThreshold(0, 0.001, 0.01, defaults, 0)).toBeCloseTo(80, 6);
    expect(msUntilNextThreshold(0.5, 1, 0, defaults, 0)).toBeNull();
  });
});
