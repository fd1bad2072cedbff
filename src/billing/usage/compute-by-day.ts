// Running time and its size per UTC day of a window: whole days from the rollup (closed intervals,
// written with each close), plus what the rollup does not hold — open intervals up to now, and closed
// intervals in the part-days at the window's edges — read live and clipped. Everything comes from
// committed rows, so any server answers the same after any restart.
import type { Kysely } from 'kysely';
import type { Database } from '../../core/db/schema.js';
import { DAY_MS, dayStartMs, splitByDay, utcDay } from '../metering/days.js';
import type { UsageRow } from '../metering/store.js';
import { rollupDays, liveIntervals, type DayRollup } from './store.js';

interface Segment {
  fromMs: number;
  toMs: number;
}

/** Sums per day over the window [fromMs, toMs); days without running time are missing. */
export async function computeByDay(db: Kysely<Database>, accountId: string, fromMs: number, toMs: number, nowMs: number): Promise<Map<string, DayRollup>> {
  const firstWholeDay = Math.ceil(fromMs / DAY_MS) * DAY_MS;
  const wholeDaysEnd = dayStartMs(toMs);
  const hasWholeDays = firstWholeDay < wholeDaysEnd;
  const edges: Segment[] = hasWholeDays
    ? [
        { fromMs, toMs: firstWholeDay },
        { fromMs: wholeDaysEnd, toMs },
      ].filter((segment) => segment.fromMs < segment.toMs)
    : [{ fromMs, toMs }];
  const [rollup, live] = await Promise.all([
    hasWholeDays ? rollupDays(db, accountId, utcDay(firstWholeDay), utcDay(wholeDaysEnd)) : Promise.resolve([]),
    liveIntervals(
      db,
      accountId,
      edges.map((segment) => ({ fromIso: new Date(segment.fromMs).toISOString(), toIso: new Date(segment.toMs).toISOString() })),
    ),
  ]);
  const days = new Map<string, DayRollup>(rollup.map((row) => [row.day, { ...row }]));
  for (const interval of live) {
    const startMs = Date.parse(interval.started_at);
    // An open interval counts in the whole window, up to now; a closed one only where the rollup does not.
    const parts = interval.ended_at === null ? [{ fromMs, toMs: Math.min(toMs, nowMs) }] : edges;
    const endMs = interval.ended_at === null ? nowMs : Date.parse(interval.ended_at);
    for (const part of parts) addRunning(days, interval, Math.max(startMs, part.fromMs), Math.min(endMs, part.toMs));
  }
  return days;
}

function addRunning(days: Map<string, DayRollup>, interval: UsageRow, fromMs: number, toMs: number): void {
  for (const { day, ms } of splitByDay(fromMs, toMs)) {
    const sum = days.get(day) ?? { day, runningMs: 0, cpuMs: 0, memoryMbMs: 0 };
    sum.runningMs += ms;
    sum.cpuMs += ms * interval.cpus;
    sum.memoryMbMs += ms * interval.memory_mb;
    days.set(day, sum);
  }
}
