import { describe, expect, it } from 'vitest';
import { standing, type QuotaRules } from './thresholds.js';

const DEFAULTS: QuotaRules = { quota_warning: { enabled: true, threshold: 0.8 }, quota_exceeded: { enabled: true, threshold: 1.0 } };

describe('compute quota standing', () => {
  it('raises nothing below 80 % and predicts the warning at the running rate', () => {
    // 100 h quota, 70 h used, 2 sandboxes running: 10 h to the warning at 2 h per hour = 5 h.
    expect(standing(70, 100, DEFAULTS, 2)).toEqual({ raise: [], limitReached: false, msUntilNext: 5 * 3_600_000 });
  });

  it('raises the warning at 80 % and predicts the limit next', () => {
    expect(standing(80, 100, DEFAULTS, 1)).toEqual({ raise: ['quota_warning'], limitReached: false, msUntilNext: 20 * 3_600_000 });
  });

  it('raises both and reaches the limit at 100 %, with nothing ahead', () => {
    expect(standing(100, 100, DEFAULTS, 3)).toEqual({ raise: ['quota_warning', 'quota_exceeded'], limitReached: true, msUntilNext: null });
  });

  it('follows the account rules: a disabled alert is never raised, but the limit still holds at 100 %', () => {
    const rules: QuotaRules = { quota_warning: { enabled: true, threshold: 0.5 }, quota_exceeded: { enabled: false, threshold: 1.0 } };
    expect(standing(60, 100, rules, 1)).toEqual({ raise: ['quota_warning'], limitReached: false, msUntilNext: 40 * 3_600_000 });
    expect(standing(100, 100, rules, 1).limitReached).toBe(true);
    expect(standing(100, 100, rules, 1).raise).toEqual(['quota_warning']);
  });

  it('predicts nothing while nothing runs', () => {
    expect(standing(10, 100, DEFAULTS, 0).msUntilNext).toBeNull();
  });
});
