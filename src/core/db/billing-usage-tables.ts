// Billing's usage rollup and compute-quota marks (migration 0019), kept beside schema.ts.

/** Closed running intervals summed per account and UTC day, written with the close (billing/metering/store.ts). */
export interface BillingUsageDaysTable {
  account_id: string;
  /** UTC day, `YYYY-MM-DD`. */
  day: string;
  /** bigint: PostgreSQL hands it back as a string. */
  running_ms: number | string;
  /** Σ cpus × running ms and Σ memory_mb × running ms: the cost follows at the configured rates when read. */
  cpu_ms: number | string;
  memory_mb_ms: number | string;
}

/** Each closed interval cut at UTC midnights, one row per day it touches: a window that starts or ends mid-day reads only that day's pieces. */
export interface BillingUsagePiecesTable {
  interval_id: string;
  day: string;
  account_id: string;
  started_at: string;
  ended_at: string;
  cpus: number;
  memory_mb: number;
}

/** A quota threshold an account crossed in a period at a given limit: inserted once, so an alert is raised once. */
export interface BillingQuotaMarksTable {
  account_id: string;
  period_start: string;
  /** The plan's compute hours when it was crossed: a bigger plan's limit is a new threshold (and lifts the block). */
  limit_hours: number;
  /** An alert raised, or `limit_reached`: creates and resumes are refused until the period ends or the plan grows. */
  type: 'quota_warning' | 'quota_exceeded' | 'limit_reached';
  period_end: string;
  hours_used: number;
  created_at: string;
}
