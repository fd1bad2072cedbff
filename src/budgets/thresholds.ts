// Budget rules as pure functions: which budget alerts a spend calls for, whether the sandbox must go, and
// how long until the next threshold is crossed at the current rate (so the sweeper checks then).
import type { AlertType } from '../alerts/contract.js';

export const BUDGET_ALERT_BITS = { budget_warning: 1, budget_critical: 2 } as const;
export type BudgetAlert = keyof typeof BUDGET_ALERT_BITS;

/** Fractions of the budget from the account's rules; a disabled rule raises nothing. */
export interface BudgetThresholds {
  budget_warning: { enabled: boolean; fraction: number };
  budget_critical: { enabled: boolean; fraction: number };
  /** Where the sandbox is destroyed: the budget_exceeded rule's threshold, 1.0 when the rule is disabled. */
  exceededFraction: number;
}

export function budgetThresholds(rules: Record<AlertType, { enabled: boolean; threshold: number | null }>): BudgetThresholds {
  const fraction = (type: AlertType, fallback: number) => rules[type]?.threshold ?? fallback;
  return {
    budget_warning: { enabled: rules.budget_warning?.enabled ?? true, fraction: fraction('budget_warning', 0.8) },
    budget_critical: { enabled: rules.budget_critical?.enabled ?? true, fraction: fraction('budget_critical', 0.95) },
    exceededFraction: rules.budget_exceeded?.enabled === false ? 1 : fraction('budget_exceeded', 1),
  };
}

export interface BudgetDecision {
  /** Alerts to raise now, in order (warning before critical). */
  raise: BudgetAlert[];
  destroy: boolean;
}

export function decide(spendUsd: number, budgetUsd: number, thresholds: BudgetThresholds, raisedBits: number): BudgetDecision {
  const raise = (['budget_warning', 'budget_critical'] as const).filter((type) => (raisedBits & BUDGET_ALERT_BITS[type]) === 0 && spendUsd >= thresholds[type].fraction * budgetUsd);
  return { raise, destroy: spendUsd >= thresholds.exceededFraction * budgetUsd };
}

/** Milliseconds until spend reaches the next threshold not yet passed, at `usdPerSecond`; null when it never will at this rate. */
export function msUntilNextThreshold(spendUsd: number, budgetUsd: number, usdPerSecond: number, thresholds: BudgetThresholds, raisedBits: number): number | null {
  if (usdPerSecond <= 0) return null;
  const pending = [
    ...(['budget_warning', 'budget_critical'] as const).filter((type) => (raisedBits & BUDGET_ALERT_BITS[type]) === 0).map((type) => thresholds[type].fraction),
    thresholds.exceededFraction,
  ]
    .map((fraction) => fraction * budgetUsd)
    .filter((target) => target > spendUsd);
  if (!pending.length) return 0;
  return ((Math.min(...pending) - spendUsd) / usdPerSecond) * 1000;
}
