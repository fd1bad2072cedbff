// Requests and their latency by route pattern (never the raw URL: ids would make a series per
// sandbox), method and status, from one onResponse hook.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Counter, Histogram, type Registry } from 'prom-client';

/** What requests that matched no route are counted as. */
export const UNMATCHED_ROUTE = 'unmatched';

const LATENCY_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

function routeOf(request: FastifyRequest): string {
  return request.is404 ? UNMATCHED_ROUTE : (request.routeOptions.url ?? UNMATCHED_ROUTE);
}

export function countHttpRequests(app: FastifyInstance, registry: Registry): void {
  const labelNames = ['route', 'method', 'status_code'] as const;
  const requests = new Counter({ name: 'paddock_http_requests_total', help: 'HTTP requests answered by the API, by route pattern, method and status code.', labelNames, registers: [registry] });
  const latency = new Histogram({
    name: 'paddock_http_request_duration_seconds',
    help: 'Time from receiving an API request to finishing its answer, by route pattern, method and status code.',
    labelNames,
    buckets: LATENCY_BUCKETS_SECONDS,
    registers: [registry],
  });
  app.addHook('onResponse', async (request, reply) => {
    const labels = { route: routeOf(request), method: request.method, status_code: String(reply.statusCode) };
    requests.inc(labels);
    latency.observe(labels, reply.elapsedTime / 1000);
  });
}
