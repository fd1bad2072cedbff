// SQL for usage: the per-day rollup of closed intervals, and the few intervals read live (open ones, and
// closed ones in the part-days at a window's edges, which the rollup cannot split).
import type { Kysely } from 'kysely';
import { prepared } from '../../core/db/prepared.js';
import type { Database } from '../../core/db/schema.js';
import type { UsageRow } from '../metering/store.js';

export interface DayRollup {
  day: string;
  runningMs: number;
  cpuMs: number;
  memoryMbMs: number;
}

const rollupQuery = prepared((db, accountId, fromDay, toDay) =>
  db.selectFrom('billing_usage_days').select(['day', 'running_ms', 'cpu_ms', 'memory_mb_ms']).where('account_id', '=', accountId).where('day', '>=', fromDay).where('day', '<', toDay),
);

/** Rollup rows of the days in [fromDay, toDay). */
export async function rollupDays(db: Kysely<Database>, accountId: string, fromDay: string, toDay: string): Promise<DayRollup[]> {
  if (fromDay >= toDay) return [];
  const rows = await rollupQuery(db, accountId, fromDay, toDay);
  return rows.map((row) => ({ day: row.day, runningMs: Number(row.running_ms), cpuMs: Number(row.cpu_ms), memoryMbMs: Number(row.memory_mb_ms) }));
}

/** The account's open intervals, and its closed ones overlapping any of `segments` ([fromIso, toIso) each). */
export async function liveIntervals(db: Kysely<Database>, accountId: string, segments: readonly { fromIso: string; toIso: string }[]): Promise<UsageRow[]> {
  return db
    .selectFrom('sandbox_usage')
    .selectAll()
    .where('account_id', '=', accountId)
    .where((eb) => eb.or([eb('ended_at', 'is', null), ...segments.map((segment) => eb.and([eb('ended_at', '>', segment.fromIso), eb('started_at', '<', segment.toIso)]))]))
    .execute();
}
