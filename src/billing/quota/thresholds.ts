// Where an account stands against its compute quota: which alert thresholds (fractions of the plan's
// hours, from the account's quota_warning and quota_exceeded rules) it has reached, whether the limit
// itself is reached (always at 100 %, whatever the rules say: the limit is the plan's, not a preference),
// and when the next one will be reached at the current number of running sandboxes.

export type QuotaAlert = 'quota_warning' | 'quota_exceeded';

export interface QuotaRules {
  quota_warning: { enabled: boolean; threshold: number | null };
  quota_exceeded: { enabled: boolean; threshold: number | null };
}

const DEFAULT_FRACTION: Record<QuotaAlert, number> = { quota_warning: 0.8, quota_exceeded: 1.0 };

/** Hours at which each enabled alert is raised. */
export function alertHours(rules: QuotaRules, limitHours: number): { type: QuotaAlert; hours: number }[] {
  return (['quota_warning', 'quota_exceeded'] as const).filter((type) => rules[type].enabled).map((type) => ({ type, hours: (rules[type].threshold ?? DEFAULT_FRACTION[type]) * limitHours }));
}

export interface QuotaStanding {
  raise: QuotaAlert[];
  limitReached: boolean;
  /** Ms until the next alert or the limit is reached at `runningSandboxes` hours per hour; null when nothing is ahead or nothing runs. */
  msUntilNext: number | null;
}

export function standing(usedHours: number, limitHours: number, rules: QuotaRules, runningSandboxes: number): QuotaStanding {
  const alerts = alertHours(rules, limitHours);
  const ahead = [...alerts.map((alert) => alert.hours), limitHours].filter((hours) => hours > usedHours);
  return {
    raise: alerts.filter((alert) => usedHours >= alert.hours).map((alert) => alert.type),
    limitReached: usedHours >= limitHours,
    msUntilNext: ahead.length && runningSandboxes > 0 ? ((Math.min(...ahead) - usedHours) / runningSandboxes) * 3_600_000 : null,
  };
}
