// Wires metrics into the app. `registerMetrics` runs first (the request counter's hook and the rate
// limits' refusal counter must exist before routes and limiters); `readFrom` adds the gauges read at
// scrape once the features that answer them exist. Served on PADDOCK_METRICS_LISTEN only.
import type { FastifyInstance } from 'fastify';
import type { Registry } from 'prom-client';
import type { ListenAddress } from '../config.js';
import type { RefusalObserver } from '../core/rate-limit.js';
import type { LifecycleConsumer } from '../sandboxes/lifecycle/contract.js';
import { countHttpRequests } from './http-requests.js';
import { sandboxLifecycleMetrics } from './lifecycle.js';
import { gaugeOutbox, type DeliveryCounts } from './outbox.js';
import { gaugePipelineStages, type StageCounts } from './pipelines.js';
import { countRateLimitRefusals } from './rate-limits.js';
import { createRegistry } from './registry.js';
import { scrapeReads } from './scrape-reads.js';
import { gaugeSandboxes, type SandboxCounts } from './sandboxes.js';
import { MetricsServer } from './server.js';

export interface MetricsSources {
  /** Absent when the app runs without a sandbox runtime. */
  sandboxes: { counts: SandboxCounts; runtime: string } | null;
  pipelines: StageCounts;
  outbox: DeliveryCounts;
}

export interface MetricsFeature {
  registry: Registry;
  /** Sandbox create/exec/destroy latency and warm-pool hits: register with the sandbox lifecycle. */
  lifecycle: LifecycleConsumer;
  /** Pass to `limiterFactory` so every rate-limit refusal is counted. */
  rateLimits: RefusalObserver;
  readFrom(sources: MetricsSources): void;
  /** Where GET /metrics is served (the port chosen when 0 was asked); null when PADDOCK_METRICS_LISTEN is off or before the app is ready. */
  address(): ListenAddress | null;
}

export function registerMetrics(app: FastifyInstance, listen: ListenAddress | null): MetricsFeature {
  const registry = createRegistry({ processMetrics: listen !== null });
  countHttpRequests(app, registry);
  const server = listen ? new MetricsServer(registry, app.log) : null;
  if (server && listen) {
    app.addHook('onReady', async () => server.listen(listen));
    app.addHook('onClose', async () => server.close());
  }
  return {
    registry,
    lifecycle: sandboxLifecycleMetrics(registry),
    rateLimits: countRateLimitRefusals(registry),
    readFrom(sources) {
      const reads = scrapeReads(registry, app.log);
      if (sources.sandboxes) gaugeSandboxes(registry, reads, sources.sandboxes.counts, sources.sandboxes.runtime);
      gaugePipelineStages(registry, reads, sources.pipelines);
      gaugeOutbox(registry, reads, sources.outbox);
    },
    address: () => server?.address() ?? null,
  };
}
