// The Stripe provider: checkout is a Stripe Checkout Session in subscription mode for the account's
// Stripe customer, the portal is Stripe's Customer Portal, and a cancel sets `cancel_at_period_end`.
// What then happens at Stripe comes back through the webhook (webhook-events.ts).
import type Stripe from 'stripe';
import type { StripeConfig } from '../../../config.js';
import { Conflict } from '../../../core/errors.js';
import type { BillingAccount, BillingProvider, ReturnContext, PaidPlan, Subscription, SubscriptionTransitions } from '../../contract.js';
import { callStripe, createStripeClient, PaymentProviderError } from './client.js';

export interface StripeProviderOptions {
  config: StripeConfig;
  /** PADDOCK_PUBLIC_URL; the request's own origin when unset. */
  publicUrl: string | null;
  transitions: Pick<SubscriptionTransitions, 'rememberCustomer'>;
  /** A plan with no Stripe price (enterprise, custom price) is checked out as a request to the operator. */
  requestPlan: BillingProvider['checkout'];
  /** The SDK client; built from `config` when not given. */
  stripe?: Stripe;
}

export function createStripeProvider(options: StripeProviderOptions): BillingProvider & { readonly stripe: Stripe } {
  const { config, transitions } = options;
  const stripe = options.stripe ?? createStripeClient(config);

  function returnBase(context: ReturnContext | undefined): string {
    const base = options.publicUrl ?? context?.publicBase;
    if (!base) throw new Error('the Stripe provider needs PADDOCK_PUBLIC_URL or the request origin for its return URLs');
    return base.replace(/\/+$/, '');
  }

  /** The account's Stripe customer: the one remembered, else a new one (once: Stripe's idempotency key dedupes concurrent checkouts). */
  async function customerOf(account: BillingAccount, subscription: Subscription): Promise<string> {
    if (subscription.providerCustomerId && subscription.provider === 'stripe') return subscription.providerCustomerId;
    const customer = await callStripe('creating the customer', () =>
      stripe.customers.create({ email: account.email, ...(account.name ? { name: account.name } : {}), metadata: { account_id: account.id } }, { idempotencyKey: `paddock-customer-${account.id}` }),
    );
    await transitions.rememberCustomer(account.id, 'stripe', customer.id);
    return customer.id;
  }

  return {
    name: 'stripe',
    stripe,

    async checkout(account, plan: PaidPlan, subscription, context?: ReturnContext) {
      const price = config.prices[plan];
      if (!price) return options.requestPlan(account, plan, subscription, context);
      // A second Checkout would start a second Stripe subscription beside the first: plan changes go through the portal.
      if (subscription.provider === 'stripe' && subscription.providerSubscriptionId && subscription.plan !== 'free') {
        throw new Conflict(`this account already pays for ${subscription.plan} through Stripe: change or cancel the plan in the billing portal (POST /v1/billing/portal)`);
      }
      const base = returnBase(context);
      const customer = await customerOf(account, subscription);
      const session = await callStripe('creating the checkout session', () =>
        stripe.checkout.sessions.create({
          mode: 'subscription',
          customer,
          client_reference_id: account.id,
          line_items: [{ price, quantity: 1 }],
          metadata: { account_id: account.id, plan },
          subscription_data: { metadata: { account_id: account.id, plan } },
          success_url: `${base}/billing?checkout=success`,
          cancel_url: `${base}/billing?checkout=canceled`,
        }),
      );
      if (!session.url) throw new PaymentProviderError('creating the checkout session', new Error(`session ${session.id} came without a url`));
      return { url: session.url };
    },

    async portal(account, subscription, context?: ReturnContext) {
      if (!subscription.providerCustomerId || subscription.provider !== 'stripe') {
        throw new Conflict('this account has no Stripe customer yet: check out a paid plan first (POST /v1/billing/checkout)');
      }
      const session = await callStripe('creating the customer portal session', () =>
        stripe.billingPortal.sessions.create({ customer: subscription.providerCustomerId!, return_url: `${returnBase(context)}/billing` }),
      );
      return { url: session.url };
    },

    async cancelAtPeriodEnd(subscription) {
      if (!subscription.providerSubscriptionId || subscription.provider !== 'stripe') {
        throw new Conflict('this account has no Stripe subscription to cancel');
      }
      await callStripe('setting cancel_at_period_end', () => stripe.subscriptions.update(subscription.providerSubscriptionId!, { cancel_at_period_end: true }));
    },
  };
}
