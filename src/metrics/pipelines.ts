// Pipeline stage attempts by stage type and outcome, and the stage queue, read from the database at
// each scrape through the pipelines feature's StageCounts.
import { Gauge, type Registry } from 'prom-client';
import type { ScrapeReads } from './scrape-reads.js';

/** The port the pipelines feature implements for metrics (pipelines/engine/counts.ts). */
export interface StageCounts {
  /** Stage attempts recorded (runs not deleted), by stage type and attempt status (running, succeeded, failed, lost, interrupted). */
  attemptsByTypeAndOutcome(): Promise<{ type: string; outcome: string; count: number }[]>;
  /** Stages by type in the statuses that wait for or hold a worker: pending (queued, possibly for a retry's backoff) and running. */
  queuedAndRunning(): Promise<{ type: string; status: 'pending' | 'running'; count: number }[]>;
}

export function gaugePipelineStages(registry: Registry, reads: ScrapeReads, source: StageCounts): void {
  new Gauge({
    name: 'paddock_pipeline_stage_attempts',
    help: 'Pipeline stage attempts recorded in the database (all servers; runs not deleted), by stage type and outcome: running, succeeded, failed, lost (its worker stopped renewing the lease), interrupted (shutdown).',
    labelNames: ['type', 'outcome'] as const,
    registers: [registry],
    async collect() {
      const rows = await reads.read('pipelines', () => source.attemptsByTypeAndOutcome());
      this.reset();
      if (!rows) return;
      for (const row of rows) this.set({ type: row.type, outcome: row.outcome }, row.count);
    },
  });
  const stagesIn = (status: 'pending' | 'running', name: string, help: string) =>
    new Gauge({
      name,
      help,
      labelNames: ['type'] as const,
      registers: [registry],
      async collect() {
        const rows = await reads.read('pipelines', () => source.queuedAndRunning());
        this.reset();
        if (!rows) return;
        for (const row of rows) if (row.status === status) this.set({ type: row.type }, row.count);
      },
    });
  stagesIn('pending', 'paddock_pipeline_stage_queue_depth', 'Pipeline stages pending (all servers): ready to run, or waiting for a retry; by stage type.');
  stagesIn('running', 'paddock_pipeline_stages_running', 'Pipeline stages being attempted now (all servers), by stage type.');
}
