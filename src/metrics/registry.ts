// One Prometheus registry per app (several apps share a test process; prom-client's global registry
// would mix them), holding Node's process metrics and every paddock_ metric.
import { collectDefaultMetrics, Registry } from 'prom-client';

export function createRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}
