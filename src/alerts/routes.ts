// HTTP surface of alerts and alert rules.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { Channel } from './rules.js';
import { Alert, AlertRule, IdParams, ListAlertsQuery, MAX_PAGE_LIMIT, UpdateRuleBody } from './schemas.js';
import type { AlertService } from './service.js';
import { ErrorResponse } from '../core/error-body.js';

const access = { access: { kind: 'key', area: 'alerts' } } as const;
const Err = ErrorResponse;
const errors = { 400: Err, 401: Err, 403: Err, 429: Err };

export function alertRoutes(service: AlertService): FastifyPluginAsyncTypebox {
  return async function register(app) {
    app.addSchema(Alert);
    app.addSchema(AlertRule);

    app.get('/v1/alerts', {
      config: access,
      schema: {
        tags: ['alerts'],
        summary: 'List alerts',
        description: `Newest first, open and resolved. Filters: \`resolved\` (true/false), \`type\`, \`sandbox_id\`, \`severity\`; an unknown value answers 400. Paginated with \`limit\` (default 20, max ${MAX_PAGE_LIMIT}) and \`offset\`; the \`X-Total-Count\` header holds the number of alerts matching the filters.`,
        querystring: ListAlertsQuery,
        response: { 200: Type.Array(Type.Ref(Alert)), ...errors },
      },
      handler: async (request, reply) => {
        const { limit = 20, offset = 0, sandbox_id, ...filter } = request.query;
        const { alerts, total } = await service.list(request.principal!.accountId, { ...filter, sandboxId: sandbox_id }, { limit, offset });
        reply.header('x-total-count', total);
        return alerts;
      },
    });

    app.get('/v1/alerts/rules', {
      config: access,
      schema: {
        tags: ['alerts'],
        summary: 'List alert rules',
        description:
          'One rule per alert type, in the order budget_warning, budget_critical, budget_exceeded, trust_low, trust_critical, sandbox_error, idle_timeout. Every account starts with all rules enabled, the default thresholds (budget 0.8 / 0.95 / 1.0 of the budget, trust 70 / 50) and all four channels; they are created the first time they are needed.',
        response: { 200: Type.Array(Type.Ref(AlertRule)), ...errors },
      },
      handler: async (request) => service.rules(request.principal!.accountId),
    });

    app.put('/v1/alerts/rules/:id', {
      config: { ...access, idempotent: true },
      schema: {
        tags: ['alerts'],
        summary: 'Change an alert rule',
        description:
          'Any of `enabled`, `threshold` (validated per type: 0.0-1.0 for budget rules, 0-100 for trust rules, null for sandbox_error and idle_timeout) and `channels` (a subset of email, chat_a, chat_b, webhook; [] keeps only the in-app notification). Answers the updated rule.',
        params: IdParams,
        body: UpdateRuleBody,
        response: { 200: Type.Ref(AlertRule), 404: Err, ...errors },
      },
      handler: async (request) => {
        const { channels, ...rest } = request.body;
        return service.updateRule(request.principal!.accountId, request.params.id, { ...rest, channels: channels as Channel[] | undefined });
      },
    });

    app.get('/v1/alerts/:id', {
      config: access,
      schema: { tags: ['alerts'], summary: 'Get an alert', params: IdParams, response: { 200: Type.Ref(Alert), 404: Err, ...errors } },
      handler: async (request) => service.get(request.principal!.accountId, request.params.id),
    });

    app.post('/v1/alerts/:id/resolve', {
      config: { ...access, idempotent: true },
      schema: {
        tags: ['alerts'],
        summary: 'Resolve an alert',
        description:
          'No body. Answers 200 with the alert, now `resolved: true` with `resolved_at`. Idempotent: resolving a resolved alert answers it unchanged. Once resolved, the same condition can raise a new alert.',
        params: IdParams,
        response: { 200: Type.Ref(Alert), 404: Err, ...errors },
      },
      handler: async (request) => service.resolve(request.principal!.accountId, request.params.id),
    });
  };
}
