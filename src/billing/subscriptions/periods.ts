// Billing periods of the manual provider and of the free plan: the calendar month, in UTC.
import type { Period } from '../contract.js';

/** The calendar month (UTC) that contains `nowMs`, `end` exclusive. */
export function calendarMonthOf(nowMs: number): Period {
  const now = new Date(nowMs);
  const start = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1);
  const end = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
  return { start: new Date(start).toISOString(), end: new Date(end).toISOString() };
}

export function daysAfter(nowMs: number, days: number): string {
  return new Date(nowMs + days * 86_400_000).toISOString();
}
