// Sandboxes this server holds, by status and runtime, read from the database at each scrape.
import { Gauge, type Registry } from 'prom-client';
import { SANDBOX_STATUSES } from '../sandboxes/lifecycle/contract.js';
import type { ScrapeReads } from './scrape-reads.js';

export interface SandboxCount {
  status: string;
  runtime: string;
  count: number;
}

/** The port the sandboxes feature implements for metrics (sandboxes/counts.ts). */
export interface SandboxCounts {
  /** Sandboxes of this server (PADDOCK_HOST_ID) that are not destroyed, grouped by status and runtime. */
  countSandboxesByStatus(): Promise<SandboxCount[]>;
}

export function gaugeSandboxes(registry: Registry, reads: ScrapeReads, source: SandboxCounts, runtime: string): void {
  new Gauge({
    name: 'paddock_sandboxes',
    help: 'Sandboxes this server holds, by status (creating, running, paused, restoring, error) and runtime. Destroyed sandboxes are counted by paddock_sandbox_destroy_duration_seconds_count.',
    labelNames: ['status', 'runtime'] as const,
    registers: [registry],
    async collect() {
      const rows = await reads.read('sandboxes', () => source.countSandboxesByStatus());
      this.reset();
      if (!rows) return;
      // Every status of this server's runtime is present, at 0 when empty, so an alert on a series sees it.
      for (const status of SANDBOX_STATUSES) if (status !== 'destroyed') this.set({ status, runtime }, 0);
      for (const row of rows) this.set({ status: row.status, runtime: row.runtime }, row.count);
    },
  });
}
