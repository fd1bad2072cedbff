// The manual provider, for a server without a payment processor: a checkout is a plan request an
// operator approves or rejects (operators/), the portal is the dashboard's billing page, and a cancel
// needs nothing from outside (the caller records it; the plan holds until the period's end).
import type { PlanRequests } from '../../plan-requests/service.js';
import type { BillingProvider, CheckoutResult, ReturnContext } from '../provider.js';

/** A checkout answered by a plan request: the URL is the billing page showing it pending. */
export type PlanRequestCheckout = CheckoutResult & { requestId: string };

export interface ManualProviderOptions {
  requests: PlanRequests;
  /** PADDOCK_PUBLIC_URL; the request's own origin when unset. */
  publicUrl: string | null;
}

/** The dashboard's billing page, optionally opened on one plan request. */
export function billingPageUrl(publicUrl: string | null, context: ReturnContext | undefined, requestId?: string): string {
  const base = (publicUrl ?? context?.publicBase ?? '').replace(/\/+$/, '');
  return `${base}/billing${requestId ? `?request=${encodeURIComponent(requestId)}` : ''}`;
}

/**
 * Checkout as a request to the operator: the manual provider's checkout, and the stripe provider's for a
 * plan without a Stripe price (enterprise, custom price).
 */
export function requestPlanCheckout(options: ManualProviderOptions): (...args: Parameters<BillingProvider['checkout']>) => Promise<PlanRequestCheckout> {
  return async (account, plan, _subscription, context) => {
    const request = await options.requests.request(account.id, plan);
    return { url: billingPageUrl(options.publicUrl, context, request.id), requestId: request.id };
  };
}

export function createManualProvider(options: ManualProviderOptions): BillingProvider {
  return {
    name: 'manual',
    checkout: requestPlanCheckout(options),
    portal: async (_account, _subscription, context) => ({ url: billingPageUrl(options.publicUrl, context) }),
    cancelAtPeriodEnd: async () => {},
  };
}
