// What a run has cost and how far its agents can be trusted, for gates. A run's sessions are its own
// session (its timeline, plus events clients report against the run) and the sessions of the
// sandboxes its stage attempts created (pipeline_run_sandboxes). Cost = metered compute of those
// sandboxes + LLM cost of the run's sessions + what stages reported (a2a, eval); trust = the lowest
// trust score among the run's sessions.
import type { Kysely } from 'kysely';
import type { Database } from '../../core/db/schema.js';

export type ComputeCostOf = (sandboxIds: string[]) => Promise<number>;

/** Compute from the sessions' stored compute_cost_usd; only for an app built without the compute meter. */
export function sessionComputeCost(db: Kysely<Database>): ComputeCostOf {
  return async (sandboxIds) => {
    if (sandboxIds.length === 0) return 0;
    const row = await db.selectFrom('sessions').select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('compute_cost_usd'), eb.lit(0)).as('total')).where('sandbox_id', 'in', sandboxIds).executeTakeFirstOrThrow();
    return Number(row.total);
  };
}

async function sandboxesOf(db: Kysely<Database>, runId: string): Promise<string[]> {
  return (await db.selectFrom('pipeline_run_sandboxes').select('sandbox_id').where('run_id', '=', runId).execute()).map((row) => row.sandbox_id);
}

/** The run's sessions: its own and those of its stage sandboxes. */
function runSessions(db: Kysely<Database>, runId: string) {
  return db
    .selectFrom('sessions')
    .where((eb) => eb.or([eb('pipeline_run_id', '=', runId), eb('sandbox_id', 'in', eb.selectFrom('pipeline_run_sandboxes').select('sandbox_id').where('run_id', '=', runId))]));
}

export async function runCostUsd(db: Kysely<Database>, computeCostOf: ComputeCostOf, runId: string): Promise<number> {
  const compute = await computeCostOf(await sandboxesOf(db, runId));
  const llm = Number((await runSessions(db, runId).select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('llm_cost_usd'), eb.lit(0)).as('total')).executeTakeFirstOrThrow()).total);
  const reported = Number((await db.selectFrom('pipeline_run_stages').select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('cost_usd'), eb.lit(0)).as('total')).where('run_id', '=', runId).executeTakeFirstOrThrow()).total);
  return compute + llm + reported;
}

export async function runTrust(db: Kysely<Database>, runId: string): Promise<{ score: number; sessions: number }> {
  const row = await runSessions(db, runId)
    .select((eb) => [eb.fn.min<number>('trust_score').as('lowest'), eb.fn.countAll<number | string>().as('count')])
    .executeTakeFirstOrThrow();
  const count = Number(row.count);
  return { score: count === 0 ? 100 : Number(row.lowest), sessions: count };
}
