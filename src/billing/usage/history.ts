// The usage history the billing dashboard charts: per UTC day of a range of days (the current period
// by default), with totals; the range is checked here, at the edge of billing.
import { Invalid } from '../../core/errors.js';
import type { DailyUsage, Period, Usage, UsageReader } from '../contract.js';
import { DAY_MS, utcDay } from '../metering/days.js';
import type { PeriodOf } from './period.js';
import { sum } from './reader.js';

export const MAX_HISTORY_DAYS = 366;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

export interface UsageHistory {
  from: string;
  to: string;
  days: DailyUsage[];
  totals: Usage;
}

export async function usageHistory(deps: { usage: UsageReader; periodOf: PeriodOf }, accountId: string, query: { from?: string; to?: string }, nowMs = Date.now()): Promise<UsageHistory> {
  const window = query.from === undefined && query.to === undefined ? await deps.periodOf(accountId, nowMs) : await explicitWindow(deps, accountId, query, nowMs);
  const days = await deps.usage.daily(accountId, window, nowMs);
  return { from: days[0]!.date, to: days[days.length - 1]!.date, days, totals: sum(days) };
}

/** Whole UTC days from `from` through `to`; a missing end is taken from the current period. */
async function explicitWindow(deps: { periodOf: PeriodOf }, accountId: string, query: { from?: string; to?: string }, nowMs: number): Promise<Period> {
  const period = query.from === undefined || query.to === undefined ? await deps.periodOf(accountId, nowMs) : null;
  const fromMs = query.from === undefined ? Date.parse(`${utcDay(Date.parse(period!.start))}T00:00:00.000Z`) : dayMs('query.from', query.from);
  const toMs = query.to === undefined ? Date.parse(`${utcDay(Date.parse(period!.end) - 1)}T00:00:00.000Z`) : dayMs('query.to', query.to);
  if (toMs < fromMs) throw new Invalid(query.to === undefined ? 'query.from' : 'query.to', `the range ends before it starts (from ${utcDay(fromMs)}, to ${utcDay(toMs)})`);
  const days = (toMs - fromMs) / DAY_MS + 1;
  if (days > MAX_HISTORY_DAYS) throw new Invalid(query.to === undefined ? 'query.from' : 'query.to', `the range covers ${days} days; at most ${MAX_HISTORY_DAYS} days can be asked at once`);
  return { start: new Date(fromMs).toISOString(), end: new Date(toMs + DAY_MS).toISOString() };
}

function dayMs(field: string, value: string): number {
  const match = DATE.exec(value);
  const ms = match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : NaN;
  if (!match || Number.isNaN(ms) || utcDay(ms) !== value) throw new Invalid(field, `must be a calendar date YYYY-MM-DD (UTC), got ${JSON.stringify(value)}`);
  return ms;
}
