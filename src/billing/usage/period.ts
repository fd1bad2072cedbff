// Which period usage and the quota count in. The subscription decides it (billing-core's service);
// an account without one counts the UTC calendar month.
import type { Period } from '../contract.js';

/** The account's current period at `nowMs`. */
export type PeriodOf = (accountId: string, nowMs: number) => Promise<Period>;

/** The UTC calendar month holding `nowMs`. */
export function calendarMonth(nowMs: number): Period {
  const now = new Date(nowMs);
  return {
    start: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1)).toISOString(),
    end: new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString(),
  };
}

export const calendarMonthPeriod: PeriodOf = async (_accountId, nowMs) => calendarMonth(nowMs);
