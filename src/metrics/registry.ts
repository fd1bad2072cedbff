// One Prometheus registry per app (several apps share a test process; prom-client's global registry
// would mix them), holding every paddock_ metric and, when metrics are served, Node's process metrics.
import { collectDefaultMetrics, Registry } from 'prom-client';

/** `processMetrics` samples the event loop and observes GC: only worth it when someone scrapes. */
export function createRegistry({ processMetrics = true }: { processMetrics?: boolean } = {}): Registry {
  const registry = new Registry();
  if (processMetrics) collectDefaultMetrics({ register: registry });
  return registry;
}
