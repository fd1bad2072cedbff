// How many sandboxes this server holds, by status and runtime: what metrics reads at each scrape
// (the SandboxCounts port of src/metrics/sandboxes.ts).
import type { Kysely } from 'kysely';
import type { Database } from '../core/db/schema.js';

export class SandboxCensus {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly hostId: string,
  ) {}

  /** Sandboxes of this server that are not destroyed (sandboxes_host_status_idx), grouped by status and runtime. */
  async countSandboxesByStatus(): Promise<{ status: string; runtime: string; count: number }[]> {
    const rows = await this.db
      .selectFrom('sandboxes')
      .select((eb) => ['status', 'runtime', eb.fn.countAll<string | number>().as('count')])
      .where('host_id', '=', this.hostId)
      .where('status', '!=', 'destroyed')
      .groupBy(['status', 'runtime'])
      .execute();
    return rows.map((row) => ({ status: row.status, runtime: row.runtime, count: Number(row.count) }));
  }
}
