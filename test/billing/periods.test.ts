// Periods, cancels and grace periods against a driven clock: the sweeper's runOnce(nowMs) and reads at
// nowMs. A manual period rolls over to the next calendar month; a canceled plan holds until effective_at,
// then the free plan's limits apply on the next request; a past-due plan holds through the grace
// period (payment_failed raised), then the free plan's limits apply.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';

const HOUR = 3_600_000;

describe.each(BACKENDS)('subscription periods on a driven clock, %s', (backend) => {
  let t: TestApp;
  let operatorKey: string;

  beforeAll(async () => {
    t = await startApp(backend, { PADDOCK_RATE_LIMIT_FREE: '500', PADDOCK_RATE_LIMIT_PRO: '700', PADDOCK_RATE_LIMIT_TEAM: '900', PADDOCK_BILLING_GRACE_DAYS: '3' });
    operatorKey = (await t.signup()).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  const onPlan = async (plan: string) => {
    const signed = await t.signup();
    const set = await t.request('PUT', `/v1/admin/accounts/${signed.account.id}/plan`, { token: operatorKey, body: { plan } });
    expect(set.status).toBe(200);
    return signed;
  };
  const limitOf = async (key: string) => (await t.request('GET', '/v1/account', { token: key })).headers.get('x-ratelimit-limit');

  it('rolls a manual period over to the next calendar month, on read and by the sweeper', async () => {
    const { key, account } = await onPlan('pro');
    const first = (await t.request('GET', '/v1/billing/subscription', { token: key })).body;
    const endMs = Date.parse(first.current_period_end);
    const next = new Date(endMs);
    const nextEnd = new Date(Date.UTC(next.getUTCFullYear(), next.getUTCMonth() + 1, 1)).toISOString();

    const read = await t.services.billing.subscriptions.view(account.id, endMs + HOUR);
    expect(read).toMatchObject({ plan: 'pro', status: 'active', current_period_start: first.current_period_end, current_period_end: nextEnd });

    const other = await onPlan('team');
    expect(await t.services.billing.sweeper.runOnce(endMs + HOUR)).toBeGreaterThanOrEqual(1);
    const swept = (await t.request('GET', '/v1/billing/subscription', { token: other.key })).body;
    expect(swept).toMatchObject({ plan: 'team', status: 'active', current_period_start: first.current_period_end, current_period_end: nextEnd });
    expect(await limitOf(other.key)).toBe('900');
  });

  it("ends a canceled plan at effective_at: before it the plan's limits, after it the free plan's", async () => {
    const { key, account } = await onPlan('pro');
    const { effective_at } = (await t.request('POST', '/v1/billing/cancel', { token: key })).body;
    const effectiveMs = Date.parse(effective_at);

    await t.services.billing.sweeper.runOnce(effectiveMs - 1000);
    expect(await limitOf(key)).toBe('700');
    expect((await t.services.billing.subscriptions.view(account.id, effectiveMs - 1000)).status).toBe('canceled');

    await t.services.billing.sweeper.runOnce(effectiveMs + 1000);
    expect(await limitOf(key)).toBe('500');
    const after = await t.services.billing.subscriptions.view(account.id, effectiveMs + 1000);
    expect(after).toMatchObject({
      plan: 'free',
      status: 'active',
      cancel_at_period_end: false,
      effective_at: null,
      current_period_start: effective_at,
      limits: { concurrent_sandboxes: 2, requests_per_minute: 500 },
    });
    expect((await t.request('GET', '/v1/account', { token: key })).body.plan).toBe('free');
  });

  it('applies a cancel that ran out when the subscription is read, before the sweeper comes', async () => {
    const { key, account } = await onPlan('team');
    const { effective_at } = (await t.request('POST', '/v1/billing/cancel', { token: key })).body;
    const read = await t.services.billing.subscriptions.view(account.id, Date.parse(effective_at) + HOUR);
    expect(read).toMatchObject({ plan: 'free', status: 'active' });
    expect(await limitOf(key)).toBe('500');
  });

  it('holds a past-due plan through the grace period with payment_failed raised, then applies the free plan', async () => {
    const { key, account } = await onPlan('pro');
    const nowMs = Date.now();
    const pastDue = await t.services.billing.transitions.markPastDue(account.id, 'card declined', nowMs);
    const graceEndsMs = nowMs + 3 * 24 * HOUR;
    expect(pastDue.graceEndsAt).toBe(new Date(graceEndsMs).toISOString());
    const alerts = (await t.request('GET', '/v1/alerts', { token: key })).body;
    expect(alerts.find((a: any) => a.type === 'payment_failed')).toMatchObject({ severity: 'error', sandbox_id: null, message: expect.stringContaining('card declined') });
    expect((await t.request('GET', '/v1/billing/subscription', { token: key })).body).toMatchObject({ plan: 'pro', status: 'past_due', grace_ends_at: new Date(graceEndsMs).toISOString() });

    await t.services.billing.sweeper.runOnce(graceEndsMs - 1000);
    expect(await limitOf(key)).toBe('700');
    await t.services.billing.sweeper.runOnce(graceEndsMs + 1000);
    expect(await limitOf(key)).toBe('500');
    expect((await t.services.billing.subscriptions.view(account.id, graceEndsMs + 1000)).status).toBe('active');
  });
});
