// What an account does about its own plan: check out a paid plan (through the provider), open the
// billing portal, cancel at the period's end. Nobody raises their own plan here: a checkout only asks
// (a payment processor's checkout, or a request an operator decides).
import { Conflict, Invalid } from '../../core/errors.js';
import type { AccountPlans, BillingProvider, Plan, ReturnContext } from '../contract.js';
import type { PlanRequests } from '../plan-requests/service.js';
import type { SubscriptionService } from './service.js';
import { stateOf, type SubscriptionTransitions } from './transitions.js';

export interface CheckoutAnswer {
  url: string;
  /** `pending`: a plan request awaits an operator (`request_id`); `open`: a payment page awaits the account. */
  status: 'pending' | 'open';
  request_id: string | null;
}

export class AccountBilling {
  constructor(
    private readonly subscriptions: SubscriptionService,
    private readonly transitions: SubscriptionTransitions,
    private readonly requests: PlanRequests,
    private readonly accounts: AccountPlans,
    private readonly provider: BillingProvider,
    private readonly clock: () => number = Date.now,
  ) {}

  async checkout(accountId: string, plan: Plan, context: ReturnContext): Promise<CheckoutAnswer> {
    if (plan === 'free') throw new Invalid('body.plan', 'must be pro, team or enterprise: to return to the free plan, cancel (POST /v1/billing/cancel)');
    const subscription = await this.subscriptions.current(accountId);
    if (subscription.plan === plan && stateOf(subscription) !== 'canceled') throw new Conflict(`the ${plan} plan is already in force for this account`);
    const result = await this.provider.checkout(await this.accounts.account(accountId), plan, subscription, context);
    const requestId = 'requestId' in result && typeof result.requestId === 'string' ? result.requestId : null;
    return { url: result.url, status: requestId ? 'pending' : 'open', request_id: requestId };
  }

  async portal(accountId: string, context: ReturnContext): Promise<{ url: string }> {
    const subscription = await this.subscriptions.current(accountId);
    return this.provider.portal(await this.accounts.account(accountId), subscription, context);
  }

  /**
   * A paid plan: canceled at the period's end (the plan holds until `effective_at`); asked again, the
   * same answer. The free plan with a pending plan request: the request is withdrawn now.
   */
  async cancel(accountId: string, nowMs = this.clock()): Promise<{ status: 'canceled'; effective_at: string }> {
    const subscription = await this.subscriptions.current(accountId, nowMs);
    const state = stateOf(subscription);
    if (state === 'free') {
      if (await this.requests.withdraw(accountId, 'canceled by the account', nowMs)) return { status: 'canceled', effective_at: new Date(nowMs).toISOString() };
      throw new Conflict('this account is on the free plan and has no pending plan request: there is nothing to cancel', 'subscription_state_conflict');
    }
    if (state !== 'canceled') await this.provider.cancelAtPeriodEnd(subscription);
    const canceled = state === 'canceled' ? subscription : await this.transitions.scheduleCancel(accountId, nowMs);
    await this.requests.withdraw(accountId, 'the subscription was canceled', nowMs);
    return { status: 'canceled', effective_at: canceled.currentPeriodEnd };
  }
}
