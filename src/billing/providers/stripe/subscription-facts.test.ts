import { describe, expect, it } from 'vitest';
import type Stripe from 'stripe';
import { planOfPrice, subscriptionFacts } from './subscription-facts.js';

const prices = { pro: 'price_pro', team: 'price_team', enterprise: null };

function subscription(fields: Record<string, unknown>, items: { price: string; start: number; end: number }[]): Stripe.Subscription {
  return {
    id: 'sub_1',
    customer: 'cus_1',
    status: 'active',
    cancel_at_period_end: false,
    cancel_at: null,
    ...fields,
    items: { data: items.map((item) => ({ price: { id: item.price }, current_period_start: item.start, current_period_end: item.end })) },
  } as unknown as Stripe.Subscription;
}

describe('subscriptionFacts', () => {
  it('reads the period off the subscription item (API versions since 2025-03-31) and the plan off its price', () => {
    const facts = subscriptionFacts(subscription({}, [{ price: 'price_team', start: 1_767_225_600, end: 1_769_904_000 }]), prices);
    expect(facts).toEqual({
      subscriptionId: 'sub_1',
      customerId: 'cus_1',
      plan: 'team',
      period: { start: '2026-01-01T00:00:00.000Z', end: '2026-02-01T00:00:00.000Z' },
      cancelAtPeriodEnd: false,
      status: 'active',
    });
  });

  it('takes a cancel_at at the period end (as the Customer Portal may set it) for a cancel at period end', () => {
    expect(subscriptionFacts(subscription({ cancel_at: 1_769_904_000 }, [{ price: 'price_pro', start: 1_767_225_600, end: 1_769_904_000 }]), prices).cancelAtPeriodEnd).toBe(true);
    expect(subscriptionFacts(subscription({ cancel_at: 1_800_000_000 }, [{ price: 'price_pro', start: 1_767_225_600, end: 1_769_904_000 }]), prices).cancelAtPeriodEnd).toBe(false);
  });

  it('knows no plan for a price that is not configured, and finds the configured one among several items', () => {
    expect(subscriptionFacts(subscription({}, [{ price: 'price_other', start: 0, end: 100 }]), prices).plan).toBeNull();
    const mixed = subscriptionFacts(
      subscription({ customer: { id: 'cus_obj' } }, [
        { price: 'price_addon', start: 10, end: 200 },
        { price: 'price_pro', start: 20, end: 100 },
      ]),
      prices,
    );
    expect(mixed).toMatchObject({ plan: 'pro', customerId: 'cus_obj', period: { start: new Date(20_000).toISOString(), end: new Date(100_000).toISOString() } });
    expect(planOfPrice(prices, null)).toBeNull();
    expect(planOfPrice({ ...prices, enterprise: 'price_ent' }, 'price_ent')).toBe('enterprise');
  });
});
