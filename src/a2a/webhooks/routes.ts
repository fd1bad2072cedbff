// HTTP surface of task webhooks: create, list, read, delete, and each webhook's deliveries.
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { DeliveryStatus } from '../../core/outbox/store.js';
import { TASK_WEBHOOK_EVENTS } from '../contract.js';
import { a2aErrors } from '../error-body.js';
import { CreateTaskWebhookBody, ListDeliveriesQuery, MAX_PAGE_LIMIT, RETRIES, SIGNING, TaskWebhook, TaskWebhookDelivery, TaskWebhookParams } from './schemas.js';
import { MAX_TASK_WEBHOOKS_PER_ACCOUNT, type TaskWebhookService } from './service.js';

// The secret is a credential: only full-scope keys reach area a2a.
const access = { access: { kind: 'key', area: 'a2a' } } as const;
const errors = a2aErrors(400, 401, 403, 404, 429);
const tags = ['a2a'];

export function taskWebhookRoutes(service: TaskWebhookService) {
  return async function register(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<TypeBoxTypeProvider>();

    app.post('/v1/a2a/webhooks', {
      config: { ...access, idempotent: true },
      schema: {
        tags,
        summary: 'Create a task webhook',
        description: `Subscribes a URL to the status changes of every task of the account: ${TASK_WEBHOOK_EVENTS.map((name) => `\`${name}\``).join(', ')}, or \`*\`. Answers 201 with \`id\`, \`url\`, \`events\`, \`created_at\` and \`secret\`: the secret you sent, or the one generated when you sent none, answered here once and never shown again. Up to ${MAX_TASK_WEBHOOKS_PER_ACCOUNT} task webhooks per account (403 \`quota_exceeded\`). ${SIGNING} ${RETRIES} Only full-scope keys.`,
        body: CreateTaskWebhookBody,
        response: { 201: TaskWebhook, ...errors },
      },
      handler: async (request, reply) => reply.code(201).send(await service.create(request.principal!.accountId, request.body)),
    });

    app.get('/v1/a2a/webhooks', {
      config: access,
      schema: {
        tags,
        summary: 'List task webhooks',
        description: '`{webhooks: [...]}`, oldest first, without their secrets.',
        response: { 200: Type.Object({ webhooks: Type.Array(TaskWebhook) }), ...errors },
      },
      handler: async (request) => ({ webhooks: await service.list(request.principal!.accountId) }),
    });

    app.get('/v1/a2a/webhooks/:id', {
      config: access,
      schema: {
        tags,
        summary: 'Get a task webhook',
        description: "Without its secret. 404 `not_found` for an unknown id or another account's webhook.",
        params: TaskWebhookParams,
        response: { 200: TaskWebhook, ...errors },
      },
      handler: async (request) => service.get(request.principal!.accountId, request.params.id),
    });

    app.delete('/v1/a2a/webhooks/:id', {
      config: access,
      schema: { tags, summary: 'Delete a task webhook', description: 'Its pending deliveries are dropped, not retried.', params: TaskWebhookParams, response: { 204: Type.Null(), ...errors } },
      handler: async (request, reply) => {
        await service.delete(request.principal!.accountId, request.params.id);
        return reply.code(204).send(null);
      },
    });

    app.get('/v1/a2a/webhooks/:id/deliveries', {
      config: access,
      schema: {
        tags,
        summary: "List a task webhook's deliveries",
        description: `\`{deliveries: [...]}\`, newest first, each with its event, task, status, attempts (with the receiver's status code and answer) and last error. ${RETRIES} Delivered and failed deliveries are kept PADDOCK_OUTBOX_RETENTION_DAYS (default 30). Filter with \`status\`; \`limit\` (default 20, max ${MAX_PAGE_LIMIT}) and \`offset\`.`,
        params: TaskWebhookParams,
        querystring: ListDeliveriesQuery,
        response: { 200: Type.Object({ deliveries: Type.Array(TaskWebhookDelivery) }), ...errors },
      },
      handler: async (request) => {
        const { limit = 20, offset = 0, status } = request.query;
        return { deliveries: await service.deliveries(request.principal!.accountId, request.params.id, { status: status as DeliveryStatus | undefined, limit, offset }) };
      },
    });
  };
}
