// Every limiter reports its refusals by name, so the preview's per-port limit is counted like the API's.
import { describe, expect, it } from 'vitest';
import { limiterFactory } from '../../src/core/rate-limit.js';
import { countRateLimitRefusals } from '../../src/metrics/rate-limits.js';
import { createRegistry } from '../../src/metrics/registry.js';
import { parseExposition, valueOf } from './exposition.js';

describe('rate-limit refusals', () => {
  it('counts each refused request under its limiter, and nothing for allowed ones', async () => {
    const registry = createRegistry();
    const limiters = limiterFactory(null, countRateLimitRefusals(registry));
    const preview = await limiters.create({ keyPrefix: 'preview_requests', points: 2, durationSeconds: 60 });
    const plan = await limiters.create({ keyPrefix: 'plan_pro', points: 5, durationSeconds: 60 });
    const decisions = [];
    for (let i = 0; i < 4; i++) decisions.push((await preview.consume('sbx_1-3000')).allowed);
    await plan.consume('acc_1');
    expect(decisions).toEqual([true, true, false, false]);

    const families = parseExposition(await registry.metrics());
    expect(valueOf(families, 'paddock_rate_limit_refusals_total', { limiter: 'preview_requests' })).toBe(2);
    expect(valueOf(families, 'paddock_rate_limit_refusals_total', { limiter: 'plan_pro' })).toBeUndefined();
  });
});
