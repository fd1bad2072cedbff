// What Paddock reads off a Stripe subscription: its plan (by the price configured for each plan), its
// period and whether it ends at the period's end. Since API version 2025-03-31 the period lives on each
// subscription item, not on the subscription; a Paddock subscription has one item.
import type Stripe from 'stripe';
import type { StripeConfig } from '../../../config.js';
import type { PaidPlan, Period } from '../../contract.js';

export interface StripeSubscriptionFacts {
  subscriptionId: string;
  customerId: string;
  /** Null: the price is none of the configured ones. */
  plan: PaidPlan | null;
  period: Period;
  cancelAtPeriodEnd: boolean;
  status: Stripe.Subscription.Status;
}

/** The paid plan a configured price id stands for, or null. */
export function planOfPrice(prices: StripeConfig['prices'], priceId: string | null | undefined): PaidPlan | null {
  if (!priceId) return null;
  for (const plan of ['pro', 'team', 'enterprise'] as const) if (prices[plan] === priceId) return plan;
  return null;
}

function isoOfUnix(seconds: number): string {
  return new Date(seconds * 1000).toISOString();
}

export function subscriptionFacts(subscription: Stripe.Subscription, prices: StripeConfig['prices']): StripeSubscriptionFacts {
  const items = subscription.items?.data ?? [];
  const item = items.find((candidate) => planOfPrice(prices, candidate.price?.id) !== null) ?? items[0];
  if (!item) throw new Error(`Stripe subscription ${subscription.id} has no items`);
  // With several items (a Paddock subscription has one) the period is the one they all share.
  const start = Math.max(...items.map((candidate) => candidate.current_period_start));
  const end = Math.min(...items.map((candidate) => candidate.current_period_end));
  return {
    subscriptionId: subscription.id,
    customerId: typeof subscription.customer === 'string' ? subscription.customer : subscription.customer.id,
    plan: planOfPrice(prices, item.price?.id),
    period: { start: isoOfUnix(start), end: isoOfUnix(end) },
    // `cancel_at` set to the period's end is how the Customer Portal may schedule a cancel too.
    cancelAtPeriodEnd: subscription.cancel_at_period_end || (subscription.cancel_at !== null && subscription.cancel_at !== undefined && subscription.cancel_at <= end),
    status: subscription.status,
  };
}
