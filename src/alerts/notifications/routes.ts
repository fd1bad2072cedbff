// HTTP surface of notifications: the in-app list, read state, deliveries to channels, and the config.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { DeliveryStatus } from '../../core/outbox/store.js';
import type { Channel } from '../rules.js';
import { IdParams, MAX_PAGE_LIMIT } from '../schemas.js';
import { Delivery, ListDeliveriesQuery, ListNotificationsQuery, Notification, NotificationConfig, NotificationWithDeliveries, UpdateConfigBody } from './schemas.js';
import type { NotificationService } from './service.js';
import { ErrorResponse } from '../../core/error-body.js';

const access = { access: { kind: 'key', area: 'alerts' } } as const;
const Err = ErrorResponse;
const errors = { 400: Err, 401: Err, 403: Err, 429: Err };

export function notificationRoutes(service: NotificationService): FastifyPluginAsyncTypebox {
  return async function register(app) {
    app.addSchema(Notification);
    app.addSchema(Delivery);
    app.addSchema(NotificationConfig);

    app.get('/v1/notifications', {
      config: access,
      schema: {
        tags: ['notifications'],
        summary: 'List notifications',
        description: `Newest first. Every raised alert creates one. \`unread=true\` lists only unread ones, \`type\` filters by alert type. Paginated with \`limit\` (default 20, max ${MAX_PAGE_LIMIT}) and \`offset\`; \`X-Total-Count\` holds the number matching.`,
        querystring: ListNotificationsQuery,
        response: { 200: Type.Array(Type.Ref(Notification)), ...errors },
      },
      handler: async (request, reply) => {
        const { limit = 20, offset = 0, ...filter } = request.query;
        const { notifications, total } = await service.list(request.principal!.accountId, filter, { limit, offset });
        reply.header('x-total-count', total);
        return notifications;
      },
    });

    app.get('/v1/notifications/unread-count', {
      config: access,
      schema: { tags: ['notifications'], summary: 'Count unread notifications', response: { 200: Type.Object({ count: Type.Integer() }), ...errors } },
      handler: async (request) => ({ count: await service.unreadCount(request.principal!.accountId) }),
    });

    app.post('/v1/notifications/read-all', {
      config: { ...access, idempotent: true },
      schema: {
        tags: ['notifications'],
        summary: 'Mark every notification read',
        description: 'No body. Answers `{"marked_read": n}`, the number that were unread.',
        response: { 200: Type.Object({ marked_read: Type.Integer() }), ...errors },
      },
      handler: async (request) => ({ marked_read: await service.markAllRead(request.principal!.accountId) }),
    });

    app.get('/v1/notifications/config', {
      config: access,
      schema: {
        tags: ['notifications'],
        summary: 'Get the notification config',
        description: 'Per channel `enabled` and its target. All channels start disabled; the webhook secret is generated with the config.',
        response: { 200: Type.Ref(NotificationConfig), ...errors },
      },
      handler: async (request) => service.config(request.principal!.accountId),
    });

    app.put('/v1/notifications/config', {
      config: { ...access, idempotent: true },
      schema: {
        tags: ['notifications'],
        summary: 'Change the notification config',
        description:
          'Send `{"channels": {...}}` with any channels and fields to change; the rest stays. An enabled channel needs its target (`email.address`, `chat_a.webhook_url`, `chat_b.webhook_url`, `webhook.url`). URLs must be https (http only when the server sets PADDOCK_ALLOW_HTTP_WEBHOOKS) and must not point to a private, loopback, link-local or other non-public address (unless PADDOCK_ALLOW_PRIVATE_WEBHOOKS); host names are checked again, on the resolved address, at every delivery. `webhook.rotate_secret: true` replaces the signing secret. Answers the whole config.',
        body: UpdateConfigBody,
        response: { 200: Type.Ref(NotificationConfig), ...errors },
      },
      handler: async (request) => service.updateConfig(request.principal!.accountId, request.body),
    });

    app.get('/v1/notifications/deliveries', {
      config: access,
      schema: {
        tags: ['notifications'],
        summary: 'List channel deliveries',
        description: `Every delivery of a notification to a channel, newest first, with each attempt and its result. Failed attempts are retried with exponential backoff (×4 from PADDOCK_OUTBOX_BACKOFF_BASE_MS, default 5 s) up to PADDOCK_OUTBOX_MAX_ATTEMPTS (default 8); pending deliveries survive a restart. Delivered and failed ones are kept PADDOCK_OUTBOX_RETENTION_DAYS (default 30) after their last change, then deleted. Filters: \`notification_id\`, \`channel\`, \`status\`; \`limit\` (default 20, max ${MAX_PAGE_LIMIT}) and \`offset\`.`,
        querystring: ListDeliveriesQuery,
        response: { 200: Type.Array(Type.Ref(Delivery)), ...errors },
      },
      handler: async (request) => {
        const { limit = 20, offset = 0, notification_id, channel, status } = request.query;
        return service.deliveries(
          request.principal!.accountId,
          { notificationId: notification_id, channel: channel as Channel | undefined, status: status as DeliveryStatus | undefined },
          { limit, offset },
        );
      },
    });

    app.get('/v1/notifications/deliveries/:id', {
      config: access,
      schema: { tags: ['notifications'], summary: 'Get a channel delivery with its attempts', params: IdParams, response: { 200: Type.Ref(Delivery), 404: Err, ...errors } },
      handler: async (request) => service.delivery(request.principal!.accountId, request.params.id),
    });

    app.get('/v1/notifications/:id', {
      config: access,
      schema: { tags: ['notifications'], summary: 'Get a notification with its deliveries', params: IdParams, response: { 200: NotificationWithDeliveries, 404: Err, ...errors } },
      handler: async (request) => service.get(request.principal!.accountId, request.params.id),
    });

    app.post('/v1/notifications/:id/read', {
      config: { ...access, idempotent: true },
      schema: {
        tags: ['notifications'],
        summary: 'Mark a notification read',
        description: 'No body. Answers the notification with `read: true`. Idempotent.',
        params: IdParams,
        response: { 200: Type.Ref(Notification), 404: Err, ...errors },
      },
      handler: async (request) => service.markRead(request.principal!.accountId, request.params.id),
    });
  };
}
