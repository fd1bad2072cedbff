// HTTP surface of billing for accounts: the open pricing table, the subscription, checkout, the billing
// portal and cancel.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { ErrorResponse } from '../core/error-body.js';
import type { BillingProviderName, PlanCatalog, ReturnContext } from './contract.js';
import { CancelAnswer, CheckoutAnswer, CheckoutBody, COMPUTE_HOURS_DEFINITION, Pricing, SubscriptionView, UrlAnswer } from './schemas.js';
import type { AccountBilling } from './subscriptions/account-billing.js';
import type { SubscriptionService } from './subscriptions/service.js';
import type { OperatorService } from './operators/service.js';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 429: ErrorResponse };
const access = { kind: 'key', area: 'billing' } as const;

export interface BillingRoutesDeps {
  catalog: PlanCatalog;
  provider: BillingProviderName;
  publicUrl: string | null;
  subscriptions: SubscriptionService;
  actions: AccountBilling;
  operators: Pick<OperatorService, 'isOperator'>;
}

export function billingRoutes(deps: BillingRoutesDeps): FastifyPluginAsyncTypebox {
  const returnTo = (request: FastifyRequest): ReturnContext => ({ publicBase: deps.publicUrl ?? `${request.protocol}://${request.host}` });
  return async function register(app) {
    app.get('/v1/pricing', {
      config: { access: { kind: 'open', limit: 'open' } },
      schema: {
        tags: ['billing'],
        summary: 'Plans and prices',
        description:
          'Open (rate-limited per IP). Every plan with its monthly price (null: custom, agreed with the operator), concurrent sandboxes and compute hours per month (null: unlimited) and request rate, as this server is configured (PADDOCK_PLAN_*, PADDOCK_RATE_LIMIT_*).',
        response: { 200: Pricing, 429: ErrorResponse },
      },
      handler: async () => ({
        currency: 'usd' as const,
        provider: deps.provider,
        compute_hours: COMPUTE_HOURS_DEFINITION,
        plans: deps.catalog.all().map((plan) => ({
          plan: plan.plan,
          price_usd_per_month: plan.priceUsdPerMonth,
          concurrent_sandboxes: plan.concurrentSandboxes,
          compute_hours_per_month: plan.computeHoursPerMonth,
          requests_per_minute: plan.requestsPerMinute,
          description: plan.description,
        })),
      }),
    });

    app.get('/v1/billing/subscription', {
      config: { access },
      schema: {
        tags: ['billing'],
        summary: "The account's subscription and this period's usage",
        description:
          "An account that never left the free plan is `free`, `active`, on the calendar month (UTC). `limits` are those of the plan in force; `usage` counts the current period. A period that has ended is rolled over before it is shown. `operator`: whether this account is one of the server's operators (it decides plan requests under /v1/admin).",
        response: { 200: SubscriptionView, ...errors },
      },
      handler: async (request) => {
        const accountId = request.principal!.accountId;
        const [view, operator] = await Promise.all([deps.subscriptions.view(accountId), deps.operators.isOperator(accountId)]);
        return { ...view, operator };
      },
    });

    app.post('/v1/billing/checkout', {
      config: { access, idempotent: true },
      schema: {
        tags: ['billing'],
        summary: 'Check out a paid plan',
        description:
          "`manual` provider: records a plan request an operator approves or rejects (a newer request replaces a pending one) and answers the dashboard's billing page (`status: pending`). `stripe`: a Stripe Checkout page (`status: open`); enterprise without a Stripe price is a plan request too. `free` answers 400 (cancel instead); the plan already in force answers 409.",
        body: CheckoutBody,
        response: { 200: CheckoutAnswer, 409: ErrorResponse, ...errors },
      },
      handler: async (request) => deps.actions.checkout(request.principal!.accountId, request.body.plan, returnTo(request)),
    });

    app.post('/v1/billing/portal', {
      config: { access, idempotent: true },
      schema: {
        tags: ['billing'],
        summary: 'A billing portal link',
        description: "`manual`: the dashboard's billing page. `stripe`: a Stripe Customer Portal session (409 before the account has a Stripe customer).",
        response: { 200: UrlAnswer, 409: ErrorResponse, ...errors },
      },
      handler: async (request) => deps.actions.portal(request.principal!.accountId, returnTo(request)),
    });

    app.post('/v1/billing/cancel', {
      config: { access, idempotent: true },
      schema: {
        tags: ['billing'],
        summary: 'Cancel at the end of the period',
        description:
          "The plan holds until `effective_at` (the current period's end), then the free plan's limits apply: sandboxes over the free concurrency keep running, but no new one starts until the account is under it. A second cancel answers the same. On the free plan, a pending plan request is withdrawn (effective now); with none there is nothing to cancel: 409.",
        response: { 200: CancelAnswer, 409: ErrorResponse, ...errors },
      },
      handler: async (request) => deps.actions.cancel(request.principal!.accountId),
    });
  };
}
