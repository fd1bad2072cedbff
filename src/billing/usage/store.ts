// SQL for usage: the per-day rollup of closed intervals, the open intervals, and the per-day pieces of
// closed intervals for the part-days at a window's edges (which the rollup cannot split).
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

/** The account's open intervals (its running sandboxes). */
export function openIntervals(db: Kysely<Database>, accountId: string): Promise<UsageRow[]> {
  return openIntervalsQuery(db, accountId);
}

const openIntervalsQuery = prepared((db, accountId) => db.selectFrom('sandbox_usage').selectAll().where('account_id', '=', accountId).where('ended_at', 'is', null));

export interface UsagePiece {
  started_at: string;
  ended_at: string;
  cpus: number;
  memory_mb: number;
}

/** The pieces of closed intervals on `day` overlapping [fromIso, toIso). */
export function piecesOfDay(db: Kysely<Database>, accountId: string, day: string, fromIso: string, toIso: string): Promise<UsagePiece[]> {
  return piecesQuery(db, accountId, day, fromIso, toIso);
}

const piecesQuery = prepared((db, accountId, day, fromIso, toIso) =>
  db
    .selectFrom('billing_usage_pieces')
    .select(['started_at', 'ended_at', 'cpus', 'memory_mb'])
    .where('account_id', '=', accountId)
    .where('day', '=', day)
    .where('ended_at', '>', fromIso)
    .where('started_at', '<', toIso),
);
