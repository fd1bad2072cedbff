// What each Stripe event does to an account's subscription. Every event is resolved to the Stripe
// subscription it concerns, fetched afresh from Stripe (events may arrive late and out of order; the
// subscription as it is now is the truth), and the stored subscription is brought to match it through
// SubscriptionTransitions. Applying the same state twice changes nothing, so a redelivery is harmless
// even before the event store answers it.
import type Stripe from 'stripe';
import type { StripeConfig } from '../../../config.js';
import type { Logger } from '../../../core/logging.js';
import { PAID_PLANS, type PaidPlan, type Subscription, type SubscriptionTransitions } from '../../contract.js';
import { callStripe } from './client.js';
import { subscriptionFacts, type StripeSubscriptionFacts } from './subscription-facts.js';

export const HANDLED_EVENTS = ['checkout.session.completed', 'customer.subscription.updated', 'customer.subscription.deleted', 'invoice.paid', 'invoice.payment_failed'] as const;

export interface StripeEventDeps {
  stripe: Stripe;
  prices: StripeConfig['prices'];
  transitions: SubscriptionTransitions;
  /** The account's stored subscription, or null when there is no such account. */
  subscriptionOf(accountId: string): Promise<Subscription | null>;
  log: Logger;
}

/** Handles one verified event; answers the account it concerned (null: none known, or an event Paddock ignores). */
export type StripeEventHandler = (event: Stripe.Event) => Promise<string | null>;

function idOf(value: string | { id: string } | null | undefined): string | null {
  if (!value) return null;
  return typeof value === 'string' ? value : value.id;
}

function paidPlan(value: unknown): PaidPlan | null {
  return PAID_PLANS.includes(value as PaidPlan) ? (value as PaidPlan) : null;
}

/** The stored subscription is this Stripe subscription, in force (an ended one is on the free plan). */
function isStripeSubscriptionOf(stored: Subscription, subscriptionId: string): boolean {
  return stored.provider === 'stripe' && stored.providerSubscriptionId === subscriptionId && stored.plan !== 'free';
}

export function stripeEventHandler(deps: StripeEventDeps): StripeEventHandler {
  const { stripe, transitions, log } = deps;

  async function currentFacts(subscriptionId: string): Promise<StripeSubscriptionFacts> {
    const subscription = await callStripe(`retrieving subscription ${subscriptionId}`, () => stripe.subscriptions.retrieve(subscriptionId));
    return subscriptionFacts(subscription, deps.prices);
  }

  /** The account a customer belongs to: the one remembered for it, else the account id Paddock put in the metadata. */
  async function accountOf(customerId: string | null, metadataAccountId: string | null | undefined): Promise<{ accountId: string; stored: Subscription } | null> {
    const candidates = [customerId ? await transitions.accountOfCustomer('stripe', customerId) : null, metadataAccountId ?? null];
    for (const accountId of candidates) {
      if (!accountId) continue;
      const stored = await deps.subscriptionOf(accountId);
      if (stored) return { accountId, stored };
    }
    return null;
  }

  /** Brings the stored subscription to what Stripe says now. */
  async function apply(accountId: string, stored: Subscription, facts: StripeSubscriptionFacts, fallbackPlan: PaidPlan | null): Promise<void> {
    const ours = isStripeSubscriptionOf(stored, facts.subscriptionId);
    switch (facts.status) {
      case 'active':
      case 'trialing': {
        const plan = facts.plan ?? fallbackPlan;
        if (!plan) {
          log.warn({ accountId, subscriptionId: facts.subscriptionId }, 'stripe subscription has a price no plan is configured with: ignored');
          return;
        }
        let current = stored;
        if (!ours || stored.plan !== plan || stored.status === 'pending') {
          current = await transitions.activate(accountId, {
            plan,
            provider: 'stripe',
            period: facts.period,
            providerCustomerId: facts.customerId,
            providerSubscriptionId: facts.subscriptionId,
          });
        } else if (
          stored.status === 'past_due' ||
          stored.currentPeriodEnd !== facts.period.end ||
          stored.currentPeriodStart !== facts.period.start ||
          stored.cancelAtPeriodEnd !== facts.cancelAtPeriodEnd
        ) {
          current = await transitions.renew(accountId, { period: facts.period, plan, cancelAtPeriodEnd: facts.cancelAtPeriodEnd });
        }
        if (facts.cancelAtPeriodEnd && current.status !== 'canceled') await transitions.scheduleCancel(accountId);
        return;
      }
      case 'past_due':
      case 'unpaid':
        if (ours && stored.status !== 'past_due') await transitions.markPastDue(accountId, `Stripe subscription ${facts.subscriptionId} is ${facts.status}`);
        return;
      case 'canceled':
      case 'incomplete_expired':
        if (ours) await transitions.endNow(accountId, `Stripe subscription ${facts.subscriptionId} ended`);
        return;
      default:
        // incomplete (the first payment is under way) and paused: nothing to change yet.
        log.info({ accountId, subscriptionId: facts.subscriptionId, status: facts.status }, 'stripe subscription status leaves the plan as it is');
    }
  }

  function unknownCustomer(event: Stripe.Event, customerId: string | null): null {
    log.warn({ eventId: event.id, type: event.type, customerId }, 'stripe event for a customer no account has: recorded and ignored');
    return null;
  }

  return async (event) => {
    switch (event.type) {
      case 'checkout.session.completed': {
        const session = event.data.object;
        const subscriptionId = idOf(session.subscription);
        if (session.mode !== 'subscription' || !subscriptionId) return null;
        const customerId = idOf(session.customer);
        const found = await accountOf(customerId, session.client_reference_id ?? session.metadata?.account_id);
        if (!found) return unknownCustomer(event, customerId);
        await apply(found.accountId, found.stored, await currentFacts(subscriptionId), paidPlan(session.metadata?.plan));
        return found.accountId;
      }
      case 'customer.subscription.updated': {
        const subscription = event.data.object;
        const customerId = idOf(subscription.customer);
        const found = await accountOf(customerId, subscription.metadata?.account_id);
        if (!found) return unknownCustomer(event, customerId);
        await apply(found.accountId, found.stored, await currentFacts(subscription.id), paidPlan(subscription.metadata?.plan));
        return found.accountId;
      }
      case 'customer.subscription.deleted': {
        const subscription = event.data.object;
        const customerId = idOf(subscription.customer);
        const found = await accountOf(customerId, subscription.metadata?.account_id);
        if (!found) return unknownCustomer(event, customerId);
        await apply(found.accountId, found.stored, { ...subscriptionFacts(subscription, deps.prices), status: 'canceled' }, null);
        return found.accountId;
      }
      case 'invoice.paid':
      case 'invoice.payment_failed': {
        const invoice = event.data.object;
        const subscriptionId = idOf(invoice.parent?.subscription_details?.subscription);
        if (!subscriptionId) return null; // a one-off invoice: no plan hangs on it
        const customerId = idOf(invoice.customer);
        const found = await accountOf(customerId, invoice.parent?.subscription_details?.metadata?.account_id);
        if (!found) return unknownCustomer(event, customerId);
        if (event.type === 'invoice.paid') {
          await apply(found.accountId, found.stored, await currentFacts(subscriptionId), null);
        } else if (isStripeSubscriptionOf(found.stored, subscriptionId) && found.stored.status !== 'past_due') {
          await transitions.markPastDue(found.accountId, `payment of Stripe invoice ${invoice.id} failed`);
        }
        return found.accountId;
      }
      default:
        return null;
    }
  };
}
