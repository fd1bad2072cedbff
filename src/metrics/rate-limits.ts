// Requests refused by a rate limit, counted where limits decide (core/rate-limit.ts reports each
// refusal with its limiter's name), so API and preview limits are counted alike.
import { Counter, type Registry } from 'prom-client';
import type { RefusalObserver } from '../core/rate-limit.js';

export function countRateLimitRefusals(registry: Registry): RefusalObserver {
  const refusals = new Counter({
    name: 'paddock_rate_limit_refusals_total',
    help: 'Requests refused with 429 by a rate limit, by limiter: plan_<plan> (per account), ip_open / ip_discovery / ip_system (per client IP), preview_requests (per previewed port). Logins refused after too many failures count as paddock_http_requests_total{route="/login",status_code="429"}.',
    labelNames: ['limiter'] as const,
    registers: [registry],
  });
  return { refused: (limiter) => refusals.inc({ limiter }) };
}
