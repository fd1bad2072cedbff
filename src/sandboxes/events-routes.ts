// HTTP surface of the sandbox lifecycle's timeline: GET /v1/sandboxes/{id}/events.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import { ErrorResponse } from '../core/error-body.js';
import { SANDBOX_EVENT_TYPES } from '../core/events/published.js';
import { SANDBOX_STATUSES } from './lifecycle/contract.js';
import { SandboxParams } from './schemas.js';
import type { SandboxService } from './service.js';

const access = { access: { kind: 'key', area: 'sandboxes' } } as const;
const Err = ErrorResponse;
const Status = Type.Union(SANDBOX_STATUSES.map((status) => Type.Literal(status)));

export const SandboxEventView = Type.Object({
  id: Type.String({ description: 'evt_…; the same id a webhook delivery of this event carries (webhook-id).' }),
  type: Type.Union(SANDBOX_EVENT_TYPES.map((type) => Type.Literal(type))),
  at: Type.String({ format: 'date-time' }),
  from: Type.Union([Status, Type.Null()], { description: 'The status before; null for events that change no status (budget thresholds).' }),
  to: Type.Union([Status, Type.Null()], { description: 'The status after; null for events that change no status.' }),
  data: Type.Record(Type.String(), Type.Unknown(), {
    description:
      'By type: `sandbox.created` template, runtime, warm (handed out from the warm pool), setup_steps, budget, duration_ms (create request → sandbox up); `sandbox.running` duration_ms (create request → set-up finished); `sandbox.paused` reason (`request`, `idle_timeout` or `compute_quota`); `sandbox.resumed` budget; `sandbox.restoring`/`sandbox.restored` snapshot_id; `sandbox.error` reason (withheld, like `error`, from narrower keys on a confidential sandbox); `sandbox.budget_threshold` threshold (`budget_warning` or `budget_critical`), level, budget, spend_usd, fraction; `sandbox.destroyed` reason (`deleted` or `budget_exceeded`), duration_ms (the teardown).',
  }),
});

const EventsQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  },
  { additionalProperties: false },
);

export function sandboxEventRoutes(service: SandboxService) {
  return async function register(app: FastifyInstance) {
    app.get<{ Params: { id: string }; Querystring: { limit?: number; offset?: number } }>('/v1/sandboxes/:id/events', {
      config: access,
      schema: {
        tags: ['sandboxes'],
        summary: "A sandbox's lifecycle timeline",
        description:
          'Every status change of the sandbox and every budget threshold it crossed, oldest first: `sandbox.created` (the runtime has it up: `to` is `running`, or `creating` while set-up steps run), `sandbox.running` (set-up finished), `sandbox.paused`, `sandbox.resumed`, `sandbox.restoring`, `sandbox.restored`, `sandbox.error` (with its reason), `sandbox.budget_threshold` (`from`/`to` null), `sandbox.destroyed` (with its reason). Each event was recorded in the same transaction as the change it reports, and is the same event account webhooks receive. Paginated with `limit` (default 100, at most 500) and `offset`; destroyed sandboxes keep their timeline.',
        params: SandboxParams,
        querystring: EventsQuery,
        response: { 200: Type.Array(SandboxEventView), 400: Err, 401: Err, 403: Err, 404: Err, 429: Err },
      },
      handler: async (request) => {
        const { accountId, scope } = request.principal!;
        const events = await service.events(accountId, request.params.id, scope, { limit: request.query.limit ?? 100, offset: request.query.offset ?? 0 });
        return events.map(({ id, type, at, from, to, data }) => ({ id, type, at, from, to, data }));
      },
    });
  };
}
