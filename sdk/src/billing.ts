// paddock.billing: the subscription and its usage, changing plan (checkout, portal, cancel) and, for the
// server's operators, the plan requests to decide.
import type { Http } from './core/http.js';
import { segment } from './core/paths.js';
import type { QueryOf, ResponseOf } from './core/types.js';

export type Subscription = ResponseOf<'/v1/billing/subscription', 'get'>;
export type UsageHistory = ResponseOf<'/v1/billing/usage', 'get'>;
export type CheckoutAnswer = ResponseOf<'/v1/billing/checkout', 'post'>;
export type CancelAnswer = ResponseOf<'/v1/billing/cancel', 'post'>;
export type Pricing = ResponseOf<'/v1/pricing', 'get'>;
export type PlanName = 'free' | 'pro' | 'team' | 'enterprise';
export type PlanRequest = ResponseOf<'/v1/admin/plan-requests', 'get'>[number];

export class Billing {
  constructor(private readonly http: Http) {}

  /** Plan, status, limits and this period's usage. */
  subscription(): Promise<Subscription> {
    return this.http.request('GET', '/v1/billing/subscription');
  }

  /** Usage per UTC day: the current period, or `from`..`to` (YYYY-MM-DD). */
  usage(query: QueryOf<'/v1/billing/usage', 'get'> = {}): Promise<UsageHistory> {
    return this.http.request('GET', '/v1/billing/usage', { query });
  }

  /** Plans and prices of this server. */
  pricing(): Promise<Pricing> {
    return this.http.request('GET', '/v1/pricing');
  }

  /** Asks for a paid plan: a checkout page (`open`) or a plan request an operator decides (`pending`). */
  checkout(plan: Exclude<PlanName, 'free'>): Promise<CheckoutAnswer> {
    return this.http.request('POST', '/v1/billing/checkout', { body: { plan } });
  }

  /** A link to manage billing. */
  async portal(): Promise<string> {
    return (await this.http.request<{ url: string }>('POST', '/v1/billing/portal')).url;
  }

  /** Cancels at the end of the period (or withdraws a pending plan request). */
  cancel(): Promise<CancelAnswer> {
    return this.http.request('POST', '/v1/billing/cancel');
  }

  /** Operators: plan requests, newest first. */
  planRequests(query: QueryOf<'/v1/admin/plan-requests', 'get'> = {}): Promise<PlanRequest[]> {
    return this.http.request('GET', '/v1/admin/plan-requests', { query });
  }

  /** Operators: puts the requested plan in force. */
  approvePlanRequest(requestId: string): Promise<ResponseOf<'/v1/admin/plan-requests/{id}/approve', 'post'>> {
    return this.http.request('POST', `/v1/admin/plan-requests/${segment(requestId)}/approve`);
  }

  /** Operators: refuses a request; `reason` is shown to the account. */
  rejectPlanRequest(requestId: string, reason?: string): Promise<ResponseOf<'/v1/admin/plan-requests/{id}/reject', 'post'>> {
    return this.http.request('POST', `/v1/admin/plan-requests/${segment(requestId)}/reject`, { body: reason === undefined ? {} : { reason } });
  }
}
