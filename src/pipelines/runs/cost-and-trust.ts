// What a run has cost and how far its agents can be trusted, for gates. A run's sandboxes are those
// its stage attempts created (pipeline_run_sandboxes); their sessions carry LLM cost and trust.
// Compute cost comes from an injected meter; until the compute meter is wired, from the sessions'
// compute_cost_usd.
import type { Kysely } from 'kysely';
import type { Database } from '../../core/db/schema.js';

export type ComputeCostOf = (sandboxIds: string[]) => Promise<number>;

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

export async function runCostUsd(db: Kysely<Database>, computeCostOf: ComputeCostOf, runId: string): Promise<number> {
  const sandboxIds = await sandboxesOf(db, runId);
  const compute = await computeCostOf(sandboxIds);
  const llm = sandboxIds.length
    ? Number((await db.selectFrom('sessions').select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('llm_cost_usd'), eb.lit(0)).as('total')).where('sandbox_id', 'in', sandboxIds).executeTakeFirstOrThrow()).total)
    : 0;
  const reported = Number((await db.selectFrom('pipeline_run_stages').select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('cost_usd'), eb.lit(0)).as('total')).where('run_id', '=', runId).executeTakeFirstOrThrow()).total);
  return compute + llm + reported;
}

export async function runTrust(db: Kysely<Database>, runId: string): Promise<{ score: number; sessions: number }> {
  const sandboxIds = await sandboxesOf(db, runId);
  if (sandboxIds.length === 0) return { score: 100, sessions: 0 };
  const row = await db
    .selectFrom('sessions')
    .select((eb) => [eb.fn.min<number>('trust_score').as('lowest'), eb.fn.countAll<number | string>().as('count')])
    .where('sandbox_id', 'in', sandboxIds)
    .executeTakeFirstOrThrow();
  const count = Number(row.count);
  return { score: count === 0 ? 100 : Number(row.lowest), sessions: count };
}
