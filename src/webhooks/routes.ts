// HTTP surface of account webhook endpoints: CRUD, a test delivery and the recent deliveries.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { ErrorResponse } from '../core/error-body.js';
import { PUBLISHED_EVENT_TYPES } from '../core/events/published.js';
import type { DeliveryStatus } from '../core/outbox/store.js';
import { CreateWebhookBody, ListDeliveriesQuery, MAX_PAGE_LIMIT, UpdateWebhookBody, WebhookDelivery, WebhookEndpoint, WebhookParams } from './schemas.js';
import { MAX_ENDPOINTS_PER_ACCOUNT, type WebhookService } from './service.js';

// The secret is a credential: only `full` keys reach webhooks (see SCOPE_TABLE).
const access = { access: { kind: 'key', area: 'webhooks' } } as const;
const Err = ErrorResponse;
const errors = { 400: Err, 401: Err, 403: Err, 404: Err, 429: Err };

const PAYLOAD =
  'Each event is POSTed as JSON `{"type", "timestamp", "data"}` (Standard Webhooks) with the headers `webhook-id` (the event id: the same on every retry, so drop duplicates), `webhook-timestamp` (epoch seconds of the attempt) and `webhook-signature` (`v1,` + base64 HMAC-SHA256 with the endpoint\'s secret). Pipeline events carry `pipeline_id`, `pipeline_name`, `run_id`, `sequence` (the run timeline\'s), `stage` (stage events) and the fields of the run timeline\'s event; sandbox events carry `sandbox_id` and the reason where there is one.';
const RETRIES =
  'A 2xx answer delivers; any other answer, a network error or no answer within PADDOCK_OUTBOX_ATTEMPT_TIMEOUT_MS is retried with exponential backoff (×4 from PADDOCK_OUTBOX_BACKOFF_BASE_MS, default 5 s) up to PADDOCK_OUTBOX_MAX_ATTEMPTS (default 8). A delivery whose endpoint was deleted or disabled by the time of an attempt is dropped (`failed`, with the reason).';

export function webhookRoutes(service: WebhookService) {
  return async function register(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
    app.addSchema(WebhookEndpoint);
    app.addSchema(WebhookDelivery);

    app.post('/v1/webhooks', {
      config: { ...access, idempotent: true },
      schema: {
        tags: ['webhooks'],
        summary: 'Create a webhook endpoint',
        description: `Subscribes a URL to the account's events: ${PUBLISHED_EVENT_TYPES.map((type) => `\`${type}\``).join(', ')} (or \`*\`). An unknown type is a 400 naming it (\`body.events[i]\`). Without \`secret\` one is generated; either way the secret is answered here once and never shown again (rotate it with PATCH). Up to ${MAX_ENDPOINTS_PER_ACCOUNT} endpoints per account (403 \`quota_exceeded\`). ${PAYLOAD} Only full-scope keys.`,
        body: CreateWebhookBody,
        response: { 201: Type.Ref(WebhookEndpoint), ...errors },
      },
      handler: async (request, reply) => reply.code(201).send(await service.create(request.principal!.accountId, request.body)),
    });

    app.get('/v1/webhooks', {
      config: access,
      schema: { tags: ['webhooks'], summary: 'List webhook endpoints', description: 'Oldest first, without their secrets.', response: { 200: Type.Array(Type.Ref(WebhookEndpoint)), ...errors } },
      handler: async (request) => service.list(request.principal!.accountId),
    });

    app.get('/v1/webhooks/:id', {
      config: access,
      schema: { tags: ['webhooks'], summary: 'Get a webhook endpoint', description: 'Without its secret.', params: WebhookParams, response: { 200: Type.Ref(WebhookEndpoint), ...errors } },
      handler: async (request) => service.get(request.principal!.accountId, request.params.id),
    });

    app.patch('/v1/webhooks/:id', {
      config: { ...access, idempotent: true },
      schema: {
        tags: ['webhooks'],
        summary: 'Change a webhook endpoint',
        description:
          'Send the fields to change (`url`, `events`, `enabled`, `description`, `secret` or `rotate_secret: true`); the rest stays. Pending deliveries go to the URL and are signed with the secret the endpoint has when they are attempted. `rotate_secret` answers the new secret, once. Disabling drops the deliveries still pending.',
        params: WebhookParams,
        body: UpdateWebhookBody,
        response: { 200: Type.Ref(WebhookEndpoint), ...errors },
      },
      handler: async (request) => service.update(request.principal!.accountId, request.params.id, request.body),
    });

    app.delete('/v1/webhooks/:id', {
      config: access,
      schema: {
        tags: ['webhooks'],
        summary: 'Delete a webhook endpoint',
        description: 'Its pending deliveries are dropped, not retried.',
        params: WebhookParams,
        response: { 204: Type.Null(), ...errors },
      },
      handler: async (request, reply) => {
        await service.delete(request.principal!.accountId, request.params.id);
        return reply.code(204).send(null);
      },
    });

    app.post('/v1/webhooks/:id/test', {
      config: { ...access, idempotent: true },
      schema: {
        tags: ['webhooks'],
        summary: 'Send a test delivery',
        description: `No body. Queues a \`webhook.test\` event (\`data\`: \`endpoint_id\`, \`message\`) to this endpoint whatever it subscribes to, signed and retried like any event, and answers 202 with the delivery; follow it in the deliveries list. 409 when the endpoint is disabled. ${RETRIES}`,
        params: WebhookParams,
        response: { 202: Type.Ref(WebhookDelivery), 409: Err, ...errors },
      },
      handler: async (request, reply) => reply.code(202).send(await service.test(request.principal!.accountId, request.params.id)),
    });

    app.get('/v1/webhooks/:id/deliveries', {
      config: access,
      schema: {
        tags: ['webhooks'],
        summary: "List an endpoint's recent deliveries",
        description: `Newest first, each with its event id and type, status, attempts (with the receiver's status code and answer) and last error. ${RETRIES} Delivered and failed deliveries are kept PADDOCK_OUTBOX_RETENTION_DAYS (default 30). Filter with \`status\`; \`limit\` (default 20, max ${MAX_PAGE_LIMIT}) and \`offset\`.`,
        params: WebhookParams,
        querystring: ListDeliveriesQuery,
        response: { 200: Type.Array(Type.Ref(WebhookDelivery)), ...errors },
      },
      handler: async (request) => {
        const { limit = 20, offset = 0, status } = request.query;
        return service.deliveries(request.principal!.accountId, request.params.id, { status: status as DeliveryStatus | undefined, limit, offset });
      },
    });
  };
}
