// GET /v1/billing/usage: the account's usage per UTC day of the current period (the calendar month for an
// account without a subscription) or of a range of days, with totals; bad ranges answer 400 naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMetering, stopMetering } from '../../src/billing/metering/service.js';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { seedSandbox } from '../helpers/sessions.js';

const HOUR = 3_600_000;
const RATES = { PADDOCK_COMPUTE_USD_PER_VCPU_HOUR: '3.6', PADDOCK_COMPUTE_USD_PER_GIB_HOUR: '3.6' };

describe.each(BACKENDS)('GET /v1/billing/usage on %s', (backend) => {
  let t: TestApp;
  let key: string;
  let accountId: string;
  const monthStart = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1));
  const monthEnd = new Date(Date.UTC(monthStart.getUTCFullYear(), monthStart.getUTCMonth() + 1, 1));
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

  beforeAll(async () => {
    t = await startApp(backend, RATES);
    ({
      key,
      account: { id: accountId },
    } = await t.signupOnPlan('pro'));
    // Two hours on the month's first day (1 vCPU + 1 GiB: 0.002 $/s).
    const id = await seedSandbox(t, accountId);
    await startMetering(t.storage.db, { id, account_id: accountId, cpus: 1, memory_mb: 1024 }, new Date(monthStart.getTime() + HOUR).toISOString());
    await stopMetering(t.storage.db, id, new Date(monthStart.getTime() + 3 * HOUR).toISOString());
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers every day of the current calendar month with totals, by default', async () => {
    const reply = await t.request('GET', '/v1/billing/usage', { token: key });
    expect(reply.status).toBe(200);
    expect(reply.body.from).toBe(day(monthStart.getTime()));
    expect(reply.body.to).toBe(day(monthEnd.getTime() - 1));
    expect(reply.body.days).toHaveLength(Math.round((monthEnd.getTime() - monthStart.getTime()) / (24 * HOUR)));
    expect(reply.body.days[0]).toEqual({ date: day(monthStart.getTime()), compute_hours: 2, compute_cost_usd: 14.4, llm_cost_usd: 0, total_cost_usd: 14.4, sandboxes_created: expect.any(Number) });
    expect(reply.body.totals).toMatchObject({ compute_hours: 2, compute_cost_usd: 14.4, llm_cost_usd: 0, total_cost_usd: 14.4 });
  });

  it('answers a range of whole days, both ends included', async () => {
    const first = day(monthStart.getTime());
    const reply = await t.request('GET', `/v1/billing/usage?from=${first}&to=${first}`, { token: key });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ from: first, to: first, totals: { compute_hours: 2 } });
    expect(reply.body.days).toHaveLength(1);
    const before = await t.request('GET', '/v1/billing/usage?from=2020-01-01&to=2020-01-31', { token: key });
    expect(before.body.days).toHaveLength(31);
    expect(before.body.totals).toEqual({ compute_hours: 0, compute_cost_usd: 0, llm_cost_usd: 0, total_cost_usd: 0, sandboxes_created: 0 });
  });

  it("shows nothing of another account's usage", async () => {
    const other = await t.signupOnPlan('pro');
    const reply = await t.request('GET', '/v1/billing/usage', { token: other.key });
    expect(reply.body.totals).toEqual({ compute_hours: 0, compute_cost_usd: 0, llm_cost_usd: 0, total_cost_usd: 0, sandboxes_created: 0 });
  });

  it.each([
    ['from=2026-02-30&to=2026-03-01', 'query.from'],
    ['from=yesterday&to=2026-03-01', 'query.from'],
    ['from=2026-03-01&to=2026-3-2', 'query.to'],
    ['from=2026-03-02&to=2026-03-01', 'query.to'],
    ['from=2025-01-01&to=2026-01-02', 'query.to'],
  ])('answers 400 naming the field for %s', async (query, field) => {
    const reply = await t.request('GET', `/v1/billing/usage?${query}`, { token: key });
    expect(reply.status).toBe(400);
    expect(JSON.stringify(reply.body)).toContain(field);
  });

  it('accepts exactly 366 days', async () => {
    const reply = await t.request('GET', '/v1/billing/usage?from=2024-01-01&to=2024-12-31', { token: key });
    expect(reply.status).toBe(200);
    expect(reply.body.days).toHaveLength(366);
  });

  it('needs a credential', async () => {
    expect((await t.request('GET', '/v1/billing/usage')).status).toBe(401);
  });
});
