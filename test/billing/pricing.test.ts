// The open pricing table: every plan from the one catalogue, with the operator's overrides.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';

describe.each(BACKENDS)('GET /v1/pricing on %s', (backend) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp(backend, { PADDOCK_PLAN_PRO_PRICE_USD: '35', PADDOCK_PLAN_TEAM_CONCURRENT_SANDBOXES: '64', PADDOCK_PLAN_ENTERPRISE_COMPUTE_HOURS: '5000', PADDOCK_RATE_LIMIT_TEAM: '1234' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is open, rate-limited per IP, and lists every plan with the overrides applied', async () => {
    const reply = await t.request('GET', '/v1/pricing');
    expect(reply.status).toBe(200);
    expect(reply.headers.get('x-ratelimit-limit')).toBe('100000');
    expect(reply.body).toMatchObject({ currency: 'usd', provider: 'manual', compute_hours: expect.stringContaining('paused and stopped time count nothing') });
    const byPlan = Object.fromEntries(reply.body.plans.map((p: any) => [p.plan, p]));
    expect(Object.keys(byPlan)).toEqual(['free', 'pro', 'team', 'enterprise']);
    expect(byPlan.free).toMatchObject({ price_usd_per_month: 0, concurrent_sandboxes: 2, compute_hours_per_month: 10, requests_per_minute: 100000 });
    expect(byPlan.pro).toMatchObject({ price_usd_per_month: 35, concurrent_sandboxes: 10, compute_hours_per_month: 100, requests_per_minute: 300 });
    expect(byPlan.team).toMatchObject({ price_usd_per_month: 99, concurrent_sandboxes: 64, compute_hours_per_month: 500, requests_per_minute: 1234 });
    expect(byPlan.enterprise).toMatchObject({ price_usd_per_month: null, concurrent_sandboxes: null, compute_hours_per_month: 5000 });
    expect(byPlan.enterprise.description).toContain('Custom price');
  });

  it('is listed in /openapi.json as open', async () => {
    const doc = (await t.request('GET', '/openapi.json')).body;
    const operation = doc.paths['/v1/pricing'].get;
    expect(operation.security).toEqual([]);
  });
});
