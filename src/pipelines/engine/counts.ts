// Stage attempts and the stage queue in numbers: what metrics reads at each scrape (the StageCounts
// port of src/metrics/pipelines.ts). Counts every server's stages: the queue is shared.
import type { Kysely } from 'kysely';
import type { Database } from '../../core/db/schema.js';

export class StageCensus {
  constructor(private readonly db: Kysely<Database>) {}

  async attemptsByTypeAndOutcome(): Promise<{ type: string; outcome: string; count: number }[]> {
    const rows = await this.db
      .selectFrom('pipeline_stage_attempts as a')
      .innerJoin('pipeline_run_stages as s', 's.id', 'a.run_stage_id')
      .select((eb) => ['s.type as type', 'a.status as outcome', eb.fn.countAll<string | number>().as('count')])
      .groupBy(['s.type', 'a.status'])
      .execute();
    return rows.map((row) => ({ type: row.type, outcome: row.outcome, count: Number(row.count) }));
  }

  async queuedAndRunning(): Promise<{ type: string; status: 'pending' | 'running'; count: number }[]> {
    const rows = await this.db
      .selectFrom('pipeline_run_stages')
      .select((eb) => ['type', 'status', eb.fn.countAll<string | number>().as('count')])
      .where('status', 'in', ['pending', 'running'])
      .groupBy(['type', 'status'])
      .execute();
    return rows.map((row) => ({ type: row.type, status: row.status as 'pending' | 'running', count: Number(row.count) }));
  }
}
