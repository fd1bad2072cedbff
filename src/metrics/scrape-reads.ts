// Gauges read from the database at each scrape go through here: a read that fails (the database is
// unreachable) leaves that gauge empty for this scrape and is logged and counted, so the rest of the
// scrape (process metrics, counters) still answers.
import { Counter, type Registry } from 'prom-client';

export interface ScrapeReads {
  /** What `load` answers, or null when it failed. */
  read<T>(source: string, load: () => Promise<T>): Promise<T | null>;
}

export interface ScrapeLogger {
  warn(obj: object, msg: string): void;
}

export function scrapeReads(registry: Registry, log: ScrapeLogger): ScrapeReads {
  const failures = new Counter({
    name: 'paddock_metrics_read_failures_total',
    help: 'Reads for a gauge that failed during a scrape (that gauge was left out), by source: sandboxes, pipelines, outbox. A scrape reads every metric at once, so a failure shows from the next scrape.',
    labelNames: ['source'] as const,
    registers: [registry],
  });
  return {
    async read(source, load) {
      try {
        return await load();
      } catch (err) {
        failures.inc({ source });
        log.warn({ err, source }, 'a metrics read failed; its gauge is left out of this scrape');
        return null;
      }
    },
  };
}
