// Running time and its size per UTC day of a window: whole days from the rollup (closed intervals,
// written with each close), plus what the rollup does not hold — open intervals up to now, and closed
// intervals in the part-days at the window's edges, from that day's pieces — clipped to the window. Everything comes from
// committed rows, so any server answers the same after any restart.
import type { Kysely } from 'kysely';
import type { Database } from '../../core/db/schema.js';
import { DAY_MS, dayStartMs, splitByDay, utcDay } from '../metering/days.js';
import { openIntervals, piecesOfDay, rollupDays, type DayRollup } from './store.js';

/** A part of one UTC day. */
interface Segment {
  fromMs: number;
  toMs: number;
}

/** Sums per day over the window [fromMs, toMs); days without running time are missing. */
export async function computeByDay(db: Kysely<Database>, accountId: string, fromMs: number, toMs: number, nowMs: number): Promise<Map<string, DayRollup>> {
  const firstWholeDay = Math.ceil(fromMs / DAY_MS) * DAY_MS;
  const wholeDaysEnd = dayStartMs(toMs);
  const hasWholeDays = firstWholeDay < wholeDaysEnd;
  // The part-days before the first whole day and after the last; a window inside one day is one part.
  const edges: Segment[] =
    firstWholeDay <= wholeDaysEnd
      ? [
          { fromMs, toMs: firstWholeDay },
          { fromMs: wholeDaysEnd, toMs },
        ].filter((segment) => segment.fromMs < segment.toMs)
      : [{ fromMs, toMs }];
  const [rollup, open, ...edgePieces] = await Promise.all([
    hasWholeDays ? rollupDays(db, accountId, utcDay(firstWholeDay), utcDay(wholeDaysEnd)) : Promise.resolve([]),
    openIntervals(db, accountId),
    ...edges.map((edge) => piecesOfDay(db, accountId, utcDay(edge.fromMs), new Date(edge.fromMs).toISOString(), new Date(edge.toMs).toISOString())),
  ]);
  const days = new Map<string, DayRollup>(rollup.map((row) => [row.day, { ...row }]));
  // An open interval counts in the whole window, up to now; a closed one only where the rollup does not.
  for (const interval of open) addRunning(days, interval, Math.max(Date.parse(interval.started_at), fromMs), Math.min(nowMs, toMs));
  edges.forEach((edge, index) => {
    for (const piece of edgePieces[index]!) addRunning(days, piece, Math.max(Date.parse(piece.started_at), edge.fromMs), Math.min(Date.parse(piece.ended_at), edge.toMs));
  });
  return days;
}

function addRunning(days: Map<string, DayRollup>, interval: { cpus: number; memory_mb: number }, fromMs: number, toMs: number): void {
  for (const { day, ms } of splitByDay(fromMs, toMs)) {
    const sum = days.get(day) ?? { day, runningMs: 0, cpuMs: 0, memoryMbMs: 0 };
    sum.runningMs += ms;
    sum.cpuMs += ms * interval.cpus;
    sum.memoryMbMs += ms * interval.memory_mb;
    days.set(day, sum);
  }
}
