// Billing through Stripe end to end: the real app with PADDOCK_BILLING_PROVIDER=stripe, its SDK pointed at
// a local stand-in for Stripe's API, and events signed with the stripe package's own test-header helper.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { signedEvent, StripeApiStandIn, stripeSubscription } from './stripe-api-stand-in.js';

const WEBHOOK_SECRET = 'whsec_test_paddock_webhook';
const DAY = 86_400;

describe.each(BACKENDS)('billing with stripe on %s', (backend) => {
  let api: StripeApiStandIn;
  let t: TestApp;
  let subscriptionCounter = 0;

  beforeAll(async () => {
    api = await new StripeApiStandIn().start();
    t = await startApp(backend, {
      PADDOCK_BILLING_PROVIDER: 'stripe',
      PADDOCK_STRIPE_SECRET_KEY: 'sk_test_paddock',
      PADDOCK_STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
      PADDOCK_STRIPE_PRICE_PRO: 'price_pro',
      PADDOCK_STRIPE_PRICE_TEAM: 'price_team',
      PADDOCK_STRIPE_API_URL: api.url,
      PADDOCK_PUBLIC_URL: 'https://paddock.example.com',
    });
  });
  afterAll(async () => {
    await t?.close();
    await api?.close();
  });

  function deliver(event: { payload: string; signature: string }, signature = event.signature) {
    return t.request('POST', '/v1/billing/stripe/webhook', { raw: event.payload, headers: { 'stripe-signature': signature }, contentType: 'application/json; charset=utf-8' });
  }

  const subscriptionOf = async (key: string) => (await t.request('GET', '/v1/billing/subscription', { token: key })).body;

  /** An account that checked out `plan` through the API, and the Stripe subscription Stripe made for it (not yet reported). */
  async function checkedOut(plan: 'pro' | 'team' = 'pro') {
    const { key, account } = await t.signup();
    const reply = await t.request('POST', '/v1/billing/checkout', { token: key, body: { plan } });
    expect(reply.status, reply.text).toBe(200);
    // The customer Paddock made at Stripe is the one it remembers for the account.
    const customer = (await t.storage.db.selectFrom('billing_subscriptions').select('provider_customer_id').where('account_id', '=', account.id).executeTakeFirstOrThrow()).provider_customer_id!;
    expect(api.to('POST', '/v1/customers').filter((request) => request.body['metadata[account_id]'] === account.id)).toHaveLength(1);
    expect(customer).toMatch(/^cus_/);
    const start = Math.floor(Date.now() / 1000) - 60;
    const subscription = stripeSubscription({
      id: `sub_test${++subscriptionCounter}`,
      customer,
      price: `price_${plan}`,
      periodStart: start,
      periodEnd: start + 30 * DAY,
      metadata: { account_id: account.id, plan },
    });
    api.subscriptions.set(subscription.id, subscription);
    const completed = signedEvent(WEBHOOK_SECRET, 'checkout.session.completed', {
      id: `cs_test_${subscription.id}`,
      object: 'checkout.session',
      mode: 'subscription',
      status: 'complete',
      customer,
      subscription: subscription.id,
      client_reference_id: account.id,
      metadata: { account_id: account.id, plan },
    });
    return { key, account, customer, subscription, completed, checkout: reply.body };
  }

  async function paying(plan: 'pro' | 'team' = 'pro') {
    const bought = await checkedOut(plan);
    expect((await deliver(bought.completed)).status).toBe(200);
    return bought;
  }

  function invoiceEvent(type: 'invoice.paid' | 'invoice.payment_failed', customer: string, subscriptionId: string) {
    return signedEvent(WEBHOOK_SECRET, type, {
      id: `in_${Math.random().toString(36).slice(2)}`,
      object: 'invoice',
      customer,
      status: type === 'invoice.paid' ? 'paid' : 'open',
      parent: { type: 'subscription_details', quote_details: null, subscription_details: { subscription: subscriptionId, metadata: {} } },
    });
  }

  it('checks out through a subscription-mode Checkout Session for the account, making its Stripe customer once', async () => {
    const { key, account, customer, checkout } = await checkedOut('pro');
    expect(checkout).toEqual({ url: expect.stringMatching(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/), status: 'open', request_id: null });
    const sessions = api.to('POST', '/v1/checkout/sessions').filter((request) => request.body.client_reference_id === account.id);
    expect(sessions).toHaveLength(1);
    expect(sessions[0].body).toMatchObject({ mode: 'subscription', customer, 'line_items[0][price]': 'price_pro', success_url: 'https://paddock.example.com/billing?checkout=success' });

    // Asked again (the user came back from Checkout without paying): the same customer.
    expect((await t.request('POST', '/v1/billing/checkout', { token: key, body: { plan: 'team' } })).status).toBe(200);
    expect(api.to('POST', '/v1/customers').filter((request) => request.body['metadata[account_id]'] === account.id)).toHaveLength(1);
    expect(
      api
        .to('POST', '/v1/checkout/sessions')
        .filter((request) => request.body.client_reference_id === account.id)
        .map((request) => request.body.customer),
    ).toEqual([customer, customer]);
    // Still free until Stripe reports the payment.
    expect(await subscriptionOf(key)).toMatchObject({ plan: 'free', status: 'active' });
  });

  it('moves the account to pro on a signed checkout.session.completed, and a replay of it does nothing', async () => {
    const { key, customer, subscription, completed } = await checkedOut('pro');
    const first = await deliver(completed);
    expect(first.status, first.text).toBe(200);
    expect(first.body).toEqual({ received: true, outcome: 'handled' });

    const view = await subscriptionOf(key);
    const item = subscription.items.data[0];
    expect(view).toMatchObject({
      plan: 'pro',
      status: 'active',
      provider: 'stripe',
      current_period_start: new Date(item.current_period_start * 1000).toISOString(),
      current_period_end: new Date(item.current_period_end * 1000).toISOString(),
      cancel_at_period_end: false,
      limits: { requests_per_minute: t.config.rateLimitPerMinute.pro },
    });
    expect((await t.request('GET', '/v1/account', { token: key })).body.plan).toBe('pro');
    const next = await t.request('GET', '/v1/account', { token: key });
    expect(next.headers.get('x-ratelimit-limit')).toBe(String(t.config.rateLimitPerMinute.pro));
    const row = await t.storage.db.selectFrom('billing_subscriptions').selectAll().where('provider_customer_id', '=', customer).executeTakeFirstOrThrow();
    expect(row.provider_subscription_id).toBe(subscription.id);

    const stripeCalls = api.requests.length;
    const replay = await deliver(completed);
    expect(replay.status).toBe(200);
    expect(replay.body).toEqual({ received: true, outcome: 'duplicate' });
    expect(api.requests.length).toBe(stripeCalls);
    const after = await t.storage.db.selectFrom('billing_subscriptions').selectAll().where('provider_customer_id', '=', customer).executeTakeFirstOrThrow();
    expect(after).toEqual(row);
  });

  it('answers 400 webhook_signature_invalid to a bad, missing or foreign signature and changes nothing', async () => {
    const { key, account, completed } = await checkedOut('pro');
    const foreign = signedEvent('whsec_someone_else', 'checkout.session.completed', JSON.parse(completed.payload).data.object, completed.id);
    const tampered = { payload: completed.payload.replace('"plan":"pro"', '"plan":"team"'), signature: completed.signature };
    for (const [event, signature] of [
      [foreign, foreign.signature],
      [tampered, tampered.signature],
      [completed, 't=1,v1=deadbeef'],
    ] as const) {
      const reply = await deliver(event, signature);
      expect(reply.status, reply.text).toBe(400);
      expect(reply.body.code).toBe('webhook_signature_invalid');
      expect(reply.body.error).toContain('Stripe-Signature');
    }
    const missing = await t.request('POST', '/v1/billing/stripe/webhook', { raw: completed.payload, contentType: 'application/json' });
    expect({ status: missing.status, code: missing.body.code, error: missing.body.error }).toEqual({
      status: 400,
      code: 'webhook_signature_invalid',
      error: 'Stripe-Signature header is missing: the event was not taken',
    });

    expect(await subscriptionOf(key)).toMatchObject({ plan: 'free', status: 'active' });
    expect((await t.request('GET', '/v1/account', { token: key })).body.plan).toBe('free');
    expect(await t.storage.db.selectFrom('billing_provider_events').selectAll().where('event_id', '=', completed.id).execute()).toEqual([]);
    // The genuine delivery of the same event is still taken.
    expect((await deliver(completed)).body.outcome).toBe('handled');
    expect((await subscriptionOf(key)).plan).toBe('pro');
    expect(account.id).toMatch(/^acc_/);
  });

  it('marks the subscription past due with a payment_failed alert on invoice.payment_failed, once, and active again on invoice.paid', async () => {
    const { key, customer, subscription } = await paying('pro');
    const failed = invoiceEvent('invoice.payment_failed', customer, subscription.id);
    expect((await deliver(failed)).status).toBe(200);
    const pastDue = await subscriptionOf(key);
    expect(pastDue).toMatchObject({ plan: 'pro', status: 'past_due' });
    const graceDays = (Date.parse(pastDue.grace_ends_at) - Date.now()) / (DAY * 1000);
    expect(graceDays).toBeGreaterThan(t.config.billing.graceDays - 0.01);
    expect(graceDays).toBeLessThan(t.config.billing.graceDays + 0.01);
    const alerts = async () => (await t.request('GET', '/v1/alerts?type=payment_failed', { token: key })).body as any[];
    expect(await alerts()).toHaveLength(1);
    expect((await alerts())[0]).toMatchObject({ type: 'payment_failed', resource: { kind: 'account' } });

    // The same failure redelivered, and a second failure of the retry: one alert, the same grace period.
    expect((await deliver(failed)).body.outcome).toBe('duplicate');
    expect((await deliver(invoiceEvent('invoice.payment_failed', customer, subscription.id))).body.outcome).toBe('handled');
    expect(await alerts()).toHaveLength(1);
    expect((await subscriptionOf(key)).grace_ends_at).toBe(pastDue.grace_ends_at);

    // Paid at last: Stripe's subscription moved to the next period.
    const item = subscription.items.data[0];
    item.current_period_start = item.current_period_end;
    item.current_period_end += 30 * DAY;
    expect((await deliver(invoiceEvent('invoice.paid', customer, subscription.id))).status).toBe(200);
    expect(await subscriptionOf(key)).toMatchObject({
      plan: 'pro',
      status: 'active',
      grace_ends_at: null,
      current_period_end: new Date(item.current_period_end * 1000).toISOString(),
    });
  });

  it('follows customer.subscription.updated: a plan change by price, then a cancel at the period end set in the portal', async () => {
    const { key, customer, subscription } = await paying('pro');
    subscription.items.data[0].price.id = 'price_team';
    const updated = signedEvent(WEBHOOK_SECRET, 'customer.subscription.updated', subscription);
    expect((await deliver(updated)).status).toBe(200);
    expect(await subscriptionOf(key)).toMatchObject({ plan: 'team', status: 'active' });
    expect((await t.request('GET', '/v1/account', { token: key })).body.plan).toBe('team');

    subscription.cancel_at_period_end = true;
    expect((await deliver(signedEvent(WEBHOOK_SECRET, 'customer.subscription.updated', subscription))).status).toBe(200);
    expect(await subscriptionOf(key)).toMatchObject({
      plan: 'team',
      status: 'canceled',
      cancel_at_period_end: true,
      effective_at: new Date(subscription.items.data[0].current_period_end * 1000).toISOString(),
    });
    expect(customer).toMatch(/^cus_/);
  });

  it('cancels through Stripe: cancel_at_period_end=true, answered canceled with effective_at at the period end', async () => {
    const { key, subscription } = await paying('pro');
    const reply = await t.request('POST', '/v1/billing/cancel', { token: key });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ status: 'canceled', effective_at: new Date(subscription.items.data[0].current_period_end * 1000).toISOString() });
    expect(api.to('POST', `/v1/subscriptions/${subscription.id}`).map((request) => request.body)).toEqual([{ cancel_at_period_end: 'true' }]);
    expect(await subscriptionOf(key)).toMatchObject({ plan: 'pro', status: 'canceled' });
  });

  it('moves the account to the free plan at once on customer.subscription.deleted', async () => {
    const { key, subscription } = await paying('team');
    subscription.status = 'canceled';
    const deleted = signedEvent(WEBHOOK_SECRET, 'customer.subscription.deleted', subscription);
    expect((await deliver(deleted)).status).toBe(200);
    expect(await subscriptionOf(key)).toMatchObject({ plan: 'free', status: 'active' });
    expect((await t.request('GET', '/v1/account', { token: key })).body.plan).toBe('free');
    // A late update of the ended subscription changes nothing.
    expect((await deliver(signedEvent(WEBHOOK_SECRET, 'customer.subscription.updated', subscription))).status).toBe(200);
    expect((await subscriptionOf(key)).plan).toBe('free');
  });

  it('opens the Customer Portal for the account’s customer, and answers 409 before there is one', async () => {
    const { key } = await t.signup();
    const none = await t.request('POST', '/v1/billing/portal', { token: key });
    expect({ status: none.status, error: none.body.error }).toEqual({ status: 409, error: expect.stringContaining('no Stripe customer yet') });

    const { key: payingKey, customer } = await paying('pro');
    const portal = await t.request('POST', '/v1/billing/portal', { token: payingKey });
    expect(portal.status, portal.text).toBe(200);
    expect(portal.body.url).toMatch(/^https:\/\/billing\.stripe\.test\/p\/session\/bps_/);
    expect(api.to('POST', '/v1/billing_portal/sessions').at(-1)!.body).toEqual({ customer, return_url: 'https://paddock.example.com/billing' });
  });

  it('turns an enterprise checkout into a plan request to the operator (no Stripe price configured)', async () => {
    const { key, account } = await t.signup();
    const before = api.requests.length;
    const reply = await t.request('POST', '/v1/billing/checkout', { token: key, body: { plan: 'enterprise' } });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toMatchObject({ status: 'pending', request_id: expect.any(String) });
    expect(api.requests.length).toBe(before);
    expect(await subscriptionOf(key)).toMatchObject({ plan: 'free', pending_request: { plan: 'enterprise' } });
    expect(account.id).toMatch(/^acc_/);
  });

  it('answers a Stripe refusal at checkout with 502 payment_provider_error naming Stripe, and stores nothing', async () => {
    const { key, account } = await t.signup();
    api.failNext(400, 'No such price: price_pro');
    const reply = await t.request('POST', '/v1/billing/checkout', { token: key, body: { plan: 'pro' } });
    expect({ status: reply.status, code: reply.body.code }).toEqual({ status: 502, code: 'payment_provider_error' });
    expect(reply.body.error).toContain('Stripe answered an error (HTTP 400): No such price: price_pro');
    const row = await t.storage.db.selectFrom('billing_subscriptions').select('provider_customer_id').where('account_id', '=', account.id).executeTakeFirst();
    expect(row?.provider_customer_id ?? null).toBeNull();
    expect(await subscriptionOf(key)).toMatchObject({ plan: 'free', status: 'active' });
  });

  it('answers 200 to events of other types and of customers no account has, records them and changes nothing', async () => {
    const other = signedEvent(WEBHOOK_SECRET, 'charge.succeeded', { id: 'ch_1', object: 'charge' });
    expect((await deliver(other)).body).toEqual({ received: true, outcome: 'handled' });
    const stranger = signedEvent(WEBHOOK_SECRET, 'invoice.payment_failed', {
      id: 'in_stranger',
      object: 'invoice',
      customer: 'cus_nobody',
      parent: { type: 'subscription_details', subscription_details: { subscription: 'sub_nobody', metadata: {} } },
    });
    expect((await deliver(stranger)).status).toBe(200);
    const recorded = await t.storage.db
      .selectFrom('billing_provider_events')
      .select(['event_id', 'type', 'account_id', 'processed_at'])
      .where('event_id', 'in', [other.id, stranger.id])
      .orderBy('type')
      .execute();
    expect(recorded).toEqual([
      { event_id: other.id, type: 'charge.succeeded', account_id: null, processed_at: expect.any(String) },
      { event_id: stranger.id, type: 'invoice.payment_failed', account_id: null, processed_at: expect.any(String) },
    ]);
    expect((await deliver(stranger)).body.outcome).toBe('duplicate');
  });

  it('releases an event whose handling failed (Stripe unreachable), so Stripe’s redelivery is handled', async () => {
    const { key, completed } = await checkedOut('pro');
    api.failNext(500, 'Stripe is having a moment', 2);
    const failed = await deliver(completed);
    expect({ status: failed.status, code: failed.body.code }).toEqual({ status: 502, code: 'payment_provider_error' });
    expect((await subscriptionOf(key)).plan).toBe('free');
    expect((await deliver(completed)).body.outcome).toBe('handled');
    expect((await subscriptionOf(key)).plan).toBe('pro');
  });
});
