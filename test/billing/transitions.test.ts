// The one writer of subscriptions against the real database: its edge table (a refused move is a 409
// naming both states), the account's plan written in the same transaction and seen by the next
// request, the payment_failed alert of a past-due move, and the bootstrap account's plan without a row.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SubscriptionTransitions } from '../../src/billing/subscriptions/transitions.js';
import { calendarMonthOf } from '../../src/billing/subscriptions/periods.js';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';

const NOW = Date.parse('2026-11-14T12:00:00.000Z');

describe.each(BACKENDS)('subscription transitions on %s', (backend) => {
  let t: TestApp;
  let transitions: SubscriptionTransitions;

  beforeAll(async () => {
    t = await startApp(backend);
    transitions = new SubscriptionTransitions(t.storage.db, t.storage.sqlDialect, t.services.accounts, t.services.alerts, { graceDays: 7, defaultProvider: 'manual' }, () => NOW);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('activates a plan: the row and the account plan change together, and the next request sees the plan', async () => {
    const { key, account } = await t.signup();
    expect((await t.request('GET', '/v1/account', { token: key })).body.plan).toBe('free');
    const subscription = await transitions.activate(account.id, { plan: 'pro', provider: 'manual', period: calendarMonthOf(NOW) });
    expect(subscription).toMatchObject({
      plan: 'pro',
      status: 'active',
      provider: 'manual',
      currentPeriodStart: '2026-11-01T00:00:00.000Z',
      currentPeriodEnd: '2026-12-01T00:00:00.000Z',
      cancelAtPeriodEnd: false,
    });
    expect((await t.request('GET', '/v1/account', { token: key })).body.plan).toBe('pro');
  });

  it('refuses to cancel or mark past due the free plan with 409 naming both states', async () => {
    const { account } = await t.signup();
    await expect(transitions.scheduleCancel(account.id)).rejects.toMatchObject({
      statusCode: 409,
      code: 'subscription_state_conflict',
      message: 'the subscription is on the free plan; it cannot move to canceled',
    });
    await expect(transitions.markPastDue(account.id, 'card declined')).rejects.toMatchObject({ statusCode: 409, message: expect.stringContaining('past_due') });
  });

  it('marks a paid subscription past due with a grace period and raises payment_failed once', async () => {
    const { key, account } = await t.signup();
    await transitions.activate(account.id, { plan: 'team', provider: 'manual', period: calendarMonthOf(NOW) });
    const pastDue = await transitions.markPastDue(account.id, 'card declined');
    expect(pastDue).toMatchObject({ plan: 'team', status: 'past_due', graceEndsAt: '2026-11-21T12:00:00.000Z' });
    const again = await transitions.markPastDue(account.id, 'card declined again', NOW + 86_400_000);
    expect(again.graceEndsAt).toBe('2026-11-21T12:00:00.000Z');
    const alerts = await t.request('GET', '/v1/alerts', { token: key });
    expect(alerts.body.filter((a: any) => a.type === 'payment_failed')).toHaveLength(1);
    const renewed = await transitions.renew(account.id, { period: calendarMonthOf(Date.parse('2026-12-02T00:00:00Z')) });
    expect(renewed).toMatchObject({ status: 'active', graceEndsAt: null, currentPeriodEnd: '2027-01-01T00:00:00.000Z' });
  });

  it('schedules a cancel that keeps the plan, and ending it puts the account on free', async () => {
    const { key, account } = await t.signup();
    await transitions.activate(account.id, { plan: 'pro', provider: 'manual', period: calendarMonthOf(NOW) });
    expect(await transitions.scheduleCancel(account.id)).toMatchObject({ plan: 'pro', status: 'canceled', cancelAtPeriodEnd: true });
    expect((await t.request('GET', '/v1/account', { token: key })).body.plan).toBe('pro');
    const ended = await transitions.endNow(account.id, 'canceled period ended', Date.parse('2026-12-01T00:00:00.000Z'));
    expect(ended).toMatchObject({ plan: 'free', status: 'active', cancelAtPeriodEnd: false, currentPeriodStart: '2026-12-01T00:00:00.000Z', currentPeriodEnd: '2027-01-01T00:00:00.000Z' });
    expect((await t.request('GET', '/v1/account', { token: key })).body.plan).toBe('free');
    await expect(transitions.renew(account.id, { period: calendarMonthOf(NOW) })).rejects.toMatchObject({ statusCode: 409 });
  });

  it('takes the plan of an account without a row from the account (the bootstrap account on enterprise)', async () => {
    const { key, account } = await t.signupOnPlan('enterprise');
    const canceled = await transitions.scheduleCancel(account.id);
    expect(canceled).toMatchObject({ plan: 'enterprise', status: 'canceled', currentPeriodEnd: '2026-12-01T00:00:00.000Z' });
    expect((await t.request('GET', '/v1/account', { token: key })).body.plan).toBe('enterprise');
  });

  it('finds an account by the customer id its provider made', async () => {
    const { account } = await t.signup();
    await transitions.rememberCustomer(account.id, 'stripe', `cus_${account.id}`);
    expect(await transitions.accountOfCustomer('stripe', `cus_${account.id}`)).toBe(account.id);
    expect(await transitions.accountOfCustomer('manual', `cus_${account.id}`)).toBeNull();
  });
});
