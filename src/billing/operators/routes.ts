// HTTP surface of the server's operators (full-scope keys of operator accounts only): plan requests to
// decide, the accounts and their plans.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ErrorResponse } from '../../core/error-body.js';
import { Nullable, StringEnum } from '../../core/schemas.js';
import { PlanRequest } from '../schemas.js';
import type { OperatorService } from './service.js';

const errors = { 400: ErrorResponse, 401: ErrorResponse, 403: ErrorResponse, 429: ErrorResponse };
const access = { kind: 'key', area: 'operator' } as const;
const OPERATOR_ONLY = 'Operators only (accounts named by PADDOCK_OPERATORS, and the first account): others get 403 `operator_only`.';

const RequestParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
const AccountParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 254, description: 'Account id or email.' }) });

const OperatorAccount = Type.Object({
  id: Type.String(),
  email: Type.String(),
  name: Nullable(Type.String()),
  plan: StringEnum(['free', 'pro', 'team', 'enterprise']),
  status: StringEnum(['active', 'past_due', 'canceled', 'pending']),
  operator: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
});

const OperatorSubscription = Type.Object({
  account_id: Type.String(),
  plan: StringEnum(['free', 'pro', 'team', 'enterprise']),
  status: StringEnum(['active', 'past_due', 'canceled', 'pending']),
  provider: StringEnum(['manual', 'stripe']),
  current_period_start: Type.String({ format: 'date-time' }),
  current_period_end: Type.String({ format: 'date-time' }),
});

export function operatorRoutes(service: OperatorService): FastifyPluginAsyncTypebox {
  return async function register(app) {
    app.get('/v1/admin/plan-requests', {
      config: { access },
      schema: {
        tags: ['operators'],
        summary: 'Plan requests to decide',
        description: `${OPERATOR_ONLY} Newest first, at most 100; \`status\` filters.`,
        querystring: Type.Object({ status: Type.Optional(StringEnum(['pending', 'approved', 'rejected', 'canceled'])) }, { additionalProperties: false }),
        response: { 200: Type.Array(PlanRequest), ...errors },
      },
      handler: async (request) => service.listRequests({ accountId: request.principal!.accountId }, request.query.status ?? null),
    });

    app.post('/v1/admin/plan-requests/:id/approve', {
      config: { access, idempotent: true },
      schema: {
        tags: ['operators'],
        summary: 'Approve a plan request',
        description: `${OPERATOR_ONLY} The plan is in force at once (the account's next request runs on its limits), for the current calendar month, renewed monthly until canceled. An operator cannot approve their own request (403 \`self_plan_change\`). Only a pending request can be decided (409).`,
        params: RequestParams,
        response: { 200: PlanRequest, 404: ErrorResponse, 409: ErrorResponse, ...errors },
      },
      handler: async (request) => service.approve({ accountId: request.principal!.accountId }, request.params.id),
    });

    app.post('/v1/admin/plan-requests/:id/reject', {
      config: { access, idempotent: true },
      schema: {
        tags: ['operators'],
        summary: 'Reject a plan request',
        description: `${OPERATOR_ONLY} The account stays on its plan; \`reason\` is shown to it. Only a pending request can be decided (409).`,
        params: RequestParams,
        body: Type.Optional(Type.Object({ reason: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })) }, { additionalProperties: false })),
        response: { 200: PlanRequest, 404: ErrorResponse, 409: ErrorResponse, ...errors },
      },
      handler: async (request) => service.reject({ accountId: request.principal!.accountId }, request.params.id, request.body?.reason ?? null),
    });

    app.get('/v1/admin/accounts', {
      config: { access },
      schema: { tags: ['operators'], summary: 'Every account and its plan', description: `${OPERATOR_ONLY} Oldest first.`, response: { 200: Type.Array(OperatorAccount), ...errors } },
      handler: async (request) => service.listAccounts({ accountId: request.principal!.accountId }),
    });

    app.put('/v1/admin/accounts/:id/plan', {
      config: { access, idempotent: true },
      schema: {
        tags: ['operators'],
        summary: "Set an account's plan",
        description: `${OPERATOR_ONLY} In force at once, for the current calendar month (\`free\` ends the subscription now). An operator cannot set their own plan (403 \`self_plan_change\`).`,
        params: AccountParams,
        body: Type.Object({ plan: StringEnum(['free', 'pro', 'team', 'enterprise']) }, { additionalProperties: false }),
        response: { 200: OperatorSubscription, 404: ErrorResponse, ...errors },
      },
      handler: async (request) => {
        const subscription = await service.setPlan({ accountId: request.principal!.accountId }, request.params.id, request.body.plan);
        return {
          account_id: subscription.accountId,
          plan: subscription.plan,
          status: subscription.status,
          provider: subscription.provider,
          current_period_start: subscription.currentPeriodStart,
          current_period_end: subscription.currentPeriodEnd,
        };
      },
    });
  };
}
