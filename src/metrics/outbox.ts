// The outbox's backlog and failures by delivery kind, read from the database at each scrape.
import { Gauge, type Registry } from 'prom-client';
import type { ScrapeReads } from './scrape-reads.js';

/** What the outbox answers for metrics (`Outbox.counts()`). */
export interface DeliveryCounts {
  counts(): Promise<{ kind: string; status: string; count: number }[]>;
  failedAttemptCounts(): Promise<{ kind: string; count: number }[]>;
}

export function gaugeOutbox(registry: Registry, reads: ScrapeReads, source: DeliveryCounts): void {
  // Each gauge reads for itself: a scrape reads gauges concurrently, so one cannot fill another's values.
  new Gauge({
    name: 'paddock_outbox_failed_deliveries',
    help: 'Outbox deliveries (all servers) that ran out of attempts, by kind; kept for PADDOCK_OUTBOX_RETENTION_DAYS.',
    labelNames: ['kind'] as const,
    registers: [registry],
    async collect() {
      const rows = await reads.read('outbox', () => source.counts());
      this.reset();
      if (!rows) return;
      for (const row of rows) if (row.status === 'failed') this.set({ kind: row.kind }, row.count);
    },
  });
  new Gauge({
    name: 'paddock_outbox_backlog',
    help: 'Outbox deliveries (all servers) not yet delivered nor given up: pending (due, or waiting for a retry) and delivering; by kind.',
    labelNames: ['kind'] as const,
    registers: [registry],
    async collect() {
      const rows = await reads.read('outbox', () => source.counts());
      this.reset();
      if (!rows) return;
      const backlog = new Map<string, number>();
      for (const row of rows) if (row.status === 'pending' || row.status === 'delivering') backlog.set(row.kind, (backlog.get(row.kind) ?? 0) + row.count);
      for (const [kind, count] of backlog) this.set({ kind }, count);
    },
  });
  new Gauge({
    name: 'paddock_outbox_failed_attempts',
    help: 'Failed delivery attempts of the outbox deliveries kept (all servers), retried or not, by kind.',
    labelNames: ['kind'] as const,
    registers: [registry],
    async collect() {
      const rows = await reads.read('outbox', () => source.failedAttemptCounts());
      this.reset();
      if (!rows) return;
      for (const row of rows) this.set({ kind: row.kind }, row.count);
    },
  });
}
