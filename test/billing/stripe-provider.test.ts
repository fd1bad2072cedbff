// The Stripe provider against a local stand-in for Stripe's API: what it asks Stripe for checkout, the
// portal and a cancel, and how Stripe's refusals come back (a 502 naming Stripe, nothing remembered).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig, type StripeConfig } from '../../src/config.js';
import type { BillingAccount, PaidPlan, Subscription } from '../../src/billing/contract.js';
import { createStripeClient } from '../../src/billing/providers/stripe/client.js';
import { createStripeProvider } from '../../src/billing/providers/stripe/provider.js';
import { HttpError } from '../../src/core/errors.js';
import { StripeApiStandIn, stripeSubscription } from './stripe-api-stand-in.js';

const account: BillingAccount = { id: 'acc_stripe1', email: 'ada@example.com', name: 'Ada' };

function freeSubscription(overrides: Partial<Subscription> = {}): Subscription {
  return {
    accountId: account.id,
    plan: 'free',
    status: 'active',
    provider: 'stripe',
    currentPeriodStart: '2026-11-01T00:00:00.000Z',
    currentPeriodEnd: '2026-12-01T00:00:00.000Z',
    cancelAtPeriodEnd: false,
    graceEndsAt: null,
    providerCustomerId: null,
    providerSubscriptionId: null,
    updatedAt: '2026-11-01T00:00:00.000Z',
    ...overrides,
  };
}

async function refusal(promise: Promise<unknown>): Promise<HttpError> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(HttpError);
  return error as HttpError;
}

describe('stripe provider', () => {
  let api: StripeApiStandIn;
  let config: StripeConfig;
  let remembered: [string, string, string][];
  let planRequests: [string, PaidPlan][];
  let provider: ReturnType<typeof createStripeProvider>;

  function build(prices: StripeConfig['prices'] = { pro: 'price_pro', team: 'price_team', enterprise: null }) {
    config = { secretKey: 'sk_test_provider', webhookSecret: 'whsec_provider', prices, apiUrl: api.url };
    return createStripeProvider({
      config,
      publicUrl: 'https://paddock.example.com',
      transitions: { rememberCustomer: async (accountId, name, customerId) => void remembered.push([accountId, name, customerId]) },
      requestPlan: async (requester, plan) => {
        planRequests.push([requester.id, plan]);
        return { url: 'https://paddock.example.com/billing?request=pending' };
      },
    });
  }

  beforeAll(async () => {
    api = await new StripeApiStandIn().start();
  });
  afterAll(async () => {
    await api.close();
  });
  beforeEach(() => {
    api.requests.length = 0;
    remembered = [];
    planRequests = [];
    provider = build();
  });

  it('checks out by creating the customer once and a subscription-mode Checkout Session for the plan’s price', async () => {
    const result = await provider.checkout(account, 'pro', freeSubscription());
    const [customer] = api.to('POST', '/v1/customers');
    expect(customer.body).toMatchObject({ email: 'ada@example.com', name: 'Ada', 'metadata[account_id]': 'acc_stripe1' });
    expect(customer.idempotencyKey).toBe('paddock-customer-acc_stripe1');
    expect(customer.authorization).toBe('Bearer sk_test_provider');
    expect(remembered).toHaveLength(1);
    const customerId = remembered[0][2];
    expect(remembered[0]).toEqual(['acc_stripe1', 'stripe', expect.stringMatching(/^cus_/)]);

    const [session] = api.to('POST', '/v1/checkout/sessions');
    expect(session.body).toMatchObject({
      mode: 'subscription',
      customer: customerId,
      client_reference_id: 'acc_stripe1',
      'line_items[0][price]': 'price_pro',
      'line_items[0][quantity]': '1',
      'metadata[account_id]': 'acc_stripe1',
      'metadata[plan]': 'pro',
      success_url: 'https://paddock.example.com/billing?checkout=success',
      cancel_url: 'https://paddock.example.com/billing?checkout=canceled',
    });
    expect(result.url).toMatch(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/);

    // The customer remembered is used from then on: no second customer.
    await provider.checkout(account, 'team', freeSubscription({ providerCustomerId: customerId }));
    expect(api.to('POST', '/v1/customers')).toHaveLength(1);
    expect(api.to('POST', '/v1/checkout/sessions')[1].body).toMatchObject({ customer: customerId, 'line_items[0][price]': 'price_team', 'metadata[plan]': 'team' });
  });

  it('sends the user back to the request’s origin when no public URL is configured', async () => {
    const unconfigured = createStripeProvider({ config, publicUrl: null, transitions: { rememberCustomer: async () => undefined }, requestPlan: async () => ({ url: '' }) });
    await unconfigured.checkout(account, 'pro', freeSubscription({ providerCustomerId: 'cus_known' }), { publicBase: 'http://127.0.0.1:8080' });
    expect(api.to('POST', '/v1/checkout/sessions')[0].body.success_url).toBe('http://127.0.0.1:8080/billing?checkout=success');
  });

  it('turns enterprise checkout into a plan request to the operator when no Stripe price is configured for it', async () => {
    const result = await provider.checkout(account, 'enterprise', freeSubscription());
    expect(planRequests).toEqual([['acc_stripe1', 'enterprise']]);
    expect(result.url).toBe('https://paddock.example.com/billing?request=pending');
    expect(api.requests).toHaveLength(0);

    const priced = build({ pro: 'price_pro', team: 'price_team', enterprise: 'price_enterprise' });
    await priced.checkout(account, 'enterprise', freeSubscription({ providerCustomerId: 'cus_known' }));
    expect(api.to('POST', '/v1/checkout/sessions')[0].body['line_items[0][price]']).toBe('price_enterprise');
    expect(planRequests).toHaveLength(1);
  });

  it('answers 409 to a checkout while a Stripe subscription is in force (plan changes go through the portal)', async () => {
    const error = await refusal(provider.checkout(account, 'team', freeSubscription({ plan: 'pro', providerCustomerId: 'cus_1', providerSubscriptionId: 'sub_1' })));
    expect(error.statusCode).toBe(409);
    expect(error.message).toContain('billing portal');
    expect(api.requests).toHaveLength(0);
  });

  it('opens a Customer Portal session for the account’s customer, and answers 409 before there is one', async () => {
    const none = await refusal(provider.portal(account, freeSubscription()));
    expect(none.statusCode).toBe(409);
    expect(none.message).toContain('no Stripe customer yet');
    expect(api.requests).toHaveLength(0);

    const { url } = await provider.portal(account, freeSubscription({ plan: 'pro', providerCustomerId: 'cus_portal' }));
    expect(api.to('POST', '/v1/billing_portal/sessions')[0].body).toEqual({ customer: 'cus_portal', return_url: 'https://paddock.example.com/billing' });
    expect(url).toMatch(/^https:\/\/billing\.stripe\.test\/p\/session\/bps_/);
  });

  it('cancels by setting cancel_at_period_end on the Stripe subscription', async () => {
    api.subscriptions.set('sub_cancel', stripeSubscription({ id: 'sub_cancel', customer: 'cus_c', price: 'price_pro', periodStart: 1_700_000_000, periodEnd: 1_702_592_000 }));
    await provider.cancelAtPeriodEnd(freeSubscription({ plan: 'pro', providerCustomerId: 'cus_c', providerSubscriptionId: 'sub_cancel' }));
    const [update] = api.to('POST', '/v1/subscriptions/sub_cancel');
    expect(update.body).toEqual({ cancel_at_period_end: 'true' });
    expect(api.subscriptions.get('sub_cancel')!.cancel_at_period_end).toBe(true);
  });

  it('answers a Stripe 4xx with a 502 naming Stripe and its message, and remembers no customer', async () => {
    api.failNext(400, 'No such price: price_pro');
    const error = await refusal(provider.checkout(account, 'pro', freeSubscription({ providerCustomerId: 'cus_known' })));
    expect({ status: error.statusCode, code: error.code }).toEqual({ status: 502, code: 'payment_provider_error' });
    expect(error.message).toBe('Stripe answered an error (HTTP 400): No such price: price_pro while creating the checkout session: nothing was changed');

    api.failNext(402, 'Your card was declined');
    await refusal(provider.checkout(account, 'pro', freeSubscription()));
    expect(remembered).toHaveLength(0);
  });

  it('answers a Stripe 5xx (after the SDK’s retry) and an unreachable Stripe with a 502', async () => {
    api.failNext(500, 'An unknown error occurred', 2);
    const error = await refusal(provider.portal(account, freeSubscription({ plan: 'pro', providerCustomerId: 'cus_5xx' })));
    expect({ status: error.statusCode, code: error.code }).toEqual({ status: 502, code: 'payment_provider_error' });
    expect(error.message).toContain('HTTP 500');

    const unreachable = createStripeProvider({
      config: { ...config, apiUrl: 'http://127.0.0.1:1' },
      stripe: createStripeClient({ secretKey: 'sk_test_x', apiUrl: 'http://127.0.0.1:1' }),
      publicUrl: 'https://paddock.example.com',
      transitions: { rememberCustomer: async () => undefined },
      requestPlan: async () => ({ url: '' }),
    });
    const down = await refusal(unreachable.cancelAtPeriodEnd(freeSubscription({ plan: 'pro', providerCustomerId: 'cus_x', providerSubscriptionId: 'sub_x' })));
    expect({ status: down.statusCode, code: down.code }).toEqual({ status: 502, code: 'payment_provider_error' });
    expect(down.message).toBe('Stripe could not be reached while setting cancel_at_period_end: nothing was changed');
  });
});

describe('stripe configuration', () => {
  const stripeEnv = {
    PADDOCK_DATA: '/tmp/paddock-config-test',
    PADDOCK_BILLING_PROVIDER: 'stripe',
    PADDOCK_STRIPE_SECRET_KEY: 'sk_test_x',
    PADDOCK_STRIPE_WEBHOOK_SECRET: 'whsec_x',
    PADDOCK_STRIPE_PRICE_PRO: 'price_pro',
    PADDOCK_STRIPE_PRICE_TEAM: 'price_team',
  };

  it('reads PADDOCK_STRIPE_API_URL as an origin, and Stripe’s own API without it', () => {
    expect(loadConfig(stripeEnv).billing.stripe).toEqual({ secretKey: 'sk_test_x', webhookSecret: 'whsec_x', prices: { pro: 'price_pro', team: 'price_team', enterprise: null }, apiUrl: null });
    expect(loadConfig({ ...stripeEnv, PADDOCK_STRIPE_API_URL: 'http://localhost:12111/' }).billing.stripe!.apiUrl).toBe('http://localhost:12111');
  });

  it('refuses a PADDOCK_STRIPE_API_URL that is not an http(s) origin, and a stripe provider missing its settings, naming them', () => {
    expect(() => loadConfig({ ...stripeEnv, PADDOCK_STRIPE_API_URL: 'localhost:12111' })).toThrow(/PADDOCK_STRIPE_API_URL must be/);
    expect(() => loadConfig({ ...stripeEnv, PADDOCK_STRIPE_API_URL: 'http://localhost:12111/v1' })).toThrow('PADDOCK_STRIPE_API_URL must be an http:// or https:// origin without a path');
    expect(() => loadConfig({ ...stripeEnv, PADDOCK_STRIPE_WEBHOOK_SECRET: '', PADDOCK_STRIPE_PRICE_TEAM: '' })).toThrow(
      'PADDOCK_BILLING_PROVIDER=stripe needs PADDOCK_STRIPE_WEBHOOK_SECRET, PADDOCK_STRIPE_PRICE_TEAM',
    );
  });
});
