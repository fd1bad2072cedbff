// Reading sandboxes: the list, one sandbox, its lifecycle timeline. Served from the database through
// SandboxReads, so every node answers them itself, one without a runtime too (sandboxes/reads.ts).
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ErrorResponse } from '../core/error-body.js';
import { SANDBOX_EVENT_TYPES } from '../core/events/published.js';
import { SANDBOX_STATUSES } from './lifecycle/contract.js';
import type { SandboxReads } from './reads.js';
import { ListQuery, Sandbox, SandboxListItem, SandboxParams } from './schemas.js';
import { sandboxListItem } from './views.js';

const access = { access: { kind: 'key', area: 'sandboxes' } } as const;
const Err = ErrorResponse;
const errors = { 400: Err, 401: Err, 403: Err, 404: Err, 429: Err };
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

export function sandboxReadRoutes(reads: SandboxReads): FastifyPluginAsyncTypebox {
  return async function register(app) {
    app.get('/v1/sandboxes', {
      config: access,
      schema: {
        tags: ['sandboxes'],
        summary: "List the account's sandboxes",
        description:
          'Newest first, paged with `limit` (at most 500) and `offset`: read pages until one is shorter than `limit`. Destroyed sandboxes only with include_destroyed=true. Each item has its `spend_usd` (compute + LLM, as GET /v1/sandboxes/{id}) next to its `budget`.',
        querystring: ListQuery,
        response: { 200: Type.Array(SandboxListItem), ...errors },
      },
      handler: async (request) => {
        const rows = await reads.list(request.principal!.accountId, {
          limit: request.query.limit ?? 100,
          offset: request.query.offset ?? 0,
          includeDestroyed: request.query.include_destroyed ?? false,
        });
        const spend = await reads.spendOfMany(rows.map((row) => row.id));
        return rows.map((row) => sandboxListItem(row, spend.get(row.id)!));
      },
    });

    app.get('/v1/sandboxes/:id', {
      config: access,
      schema: {
        tags: ['sandboxes'],
        summary: 'Get a sandbox',
        description:
          'Every creation field except repo_token (keys of other scopes than `full` see `on_complete` and `on_budget_exceeded` as their origin, `https://host/***`: a webhook URL is often a credential), plus status, error, runtime, times, and what the sandbox has spent: `spend_usd` = `compute_cost_usd` (metered while running) + `llm_cost_usd` (its sessions), checked against `budget`.',
        params: SandboxParams,
        response: { 200: Sandbox, ...errors },
      },
      handler: async (request) => reads.detail(await reads.get(request.principal!.accountId, request.params.id), request.principal!.scope),
    });

    app.get('/v1/sandboxes/:id/events', {
      config: access,
      schema: {
        tags: ['sandboxes'],
        summary: "A sandbox's lifecycle timeline",
        description:
          'Every status change of the sandbox and every budget threshold it crossed, oldest first: `sandbox.created` (the runtime has it up: `to` is `running`, or `creating` while set-up steps run), `sandbox.running` (set-up finished), `sandbox.paused`, `sandbox.resumed`, `sandbox.restoring`, `sandbox.restored`, `sandbox.error` (with its reason), `sandbox.budget_threshold` (`from`/`to` null), `sandbox.destroyed` (with its reason). Each event was recorded in the same transaction as the change it reports, and is the same event account webhooks receive. Paginated with `limit` (default 100, at most 500) and `offset`; destroyed sandboxes keep their timeline.',
        params: SandboxParams,
        querystring: EventsQuery,
        response: { 200: Type.Array(SandboxEventView), ...errors },
      },
      handler: async (request) => {
        const { accountId, scope } = request.principal!;
        const events = await reads.events(accountId, request.params.id, scope, { limit: request.query.limit ?? 100, offset: request.query.offset ?? 0 });
        return events.map(({ id, type, at, from, to, data }) => ({ id, type, at, from, to, data }));
      },
    });
  };
}
