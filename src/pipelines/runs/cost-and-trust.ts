// What a run has cost and how far its agents can be trusted, for gates. A run's sessions are its own
// session (its timeline, plus events clients report against the run) and the sessions of the
// sandboxes its stage attempts created (pipeline_run_sandboxes). Cost = metered compute of those
// sandboxes + LLM cost of the run's sessions + what stages reported (a2a, eval); trust = the lowest
// trust score among the run's sessions.
import type { Kysely } from 'kysely';
import type { Database } from '../../core/db/schema.js';
import { reportedCostUsd, sandboxesOfRun } from './store.js';

export type ComputeCostOf = (sandboxIds: string[]) => Promise<number>;

/** What gates need of the run's sessions (the sessions feature answers). */
export interface RunSessionTotals {
  /** Over the run's own session and the sessions of `sandboxIds`: their LLM cost, their lowest trust score (null without sessions) and how many there are. */
  runTotals(runId: string, sandboxIds: readonly string[]): Promise<{ llmCostUsd: number; lowestTrustScore: number | null; sessions: number }>;
}

export async function runCostUsd(db: Kysely<Database>, sessions: RunSessionTotals, computeCostOf: ComputeCostOf, runId: string): Promise<number> {
  const sandboxIds = await sandboxesOfRun(db, runId);
  const [compute, totals, reported] = await Promise.all([computeCostOf(sandboxIds), sessions.runTotals(runId, sandboxIds), reportedCostUsd(db, runId)]);
  return compute + totals.llmCostUsd + reported;
}

export async function runTrust(db: Kysely<Database>, sessions: RunSessionTotals, runId: string): Promise<{ score: number; sessions: number }> {
  const totals = await sessions.runTotals(runId, await sandboxesOfRun(db, runId));
  return { score: totals.sessions === 0 || totals.lowestTrustScore === null ? 100 : totals.lowestTrustScore, sessions: totals.sessions };
}
