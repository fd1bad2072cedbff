// Request and response shapes of the webhook endpoints: they validate input and document the API.
import { Type, type Static } from '@sinclair/typebox';
import { PUBLISHED_EVENT_TYPES } from '../core/events/published.js';
import { deliveryProgressFields } from '../core/outbox/attempt-view.js';
import { DELIVERY_STATUSES } from '../core/outbox/store.js';
import { SECRET_PATTERN } from '../core/webhooks/signature.js';

export const MAX_PAGE_LIMIT = 100;
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

const EVENT_LIST = `${PUBLISHED_EVENT_TYPES.map((type) => `\`${type}\``).join(', ')}, or \`*\` for every type (including types added later)`;
const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'Where events are POSTed. Must be https (http only when the server sets PADDOCK_ALLOW_HTTP_WEBHOOKS) and must not point to a private, loopback, link-local or other non-public address (unless PADDOCK_ALLOW_PRIVATE_WEBHOOKS); host names are checked again, on the resolved address, at every delivery.',
});
const Events = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { minItems: 1, maxItems: 32, description: `Event types to receive: ${EVENT_LIST}. Repeats are dropped.` });
const Secret = Type.String({ pattern: SECRET_PATTERN, maxLength: 200, writeOnly: true, description: 'Bring your own Standard Webhooks secret: `whsec_` + base64 of 24-64 bytes.' });
const Description = Nullable(Type.String({ maxLength: 500 }));

export const WebhookParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const CreateWebhookBody = Type.Object(
  {
    url: Url,
    events: Events,
    secret: Type.Optional(Secret),
    description: Type.Optional(Description),
    enabled: Type.Optional(Type.Boolean({ default: true, description: 'A disabled endpoint receives nothing; events that happen meanwhile are not kept for it.' })),
  },
  { additionalProperties: false },
);
export type CreateWebhookInput = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = Type.Object(
  {
    url: Type.Optional(Url),
    events: Type.Optional(Events),
    enabled: Type.Optional(Type.Boolean()),
    description: Type.Optional(Description),
    secret: Type.Optional(Secret),
    rotate_secret: Type.Optional(Type.Boolean({ description: '`true` generates a new secret, answered once in this response; deliveries still pending are signed with it.' })),
  },
  { additionalProperties: false },
);
export type UpdateWebhookInput = Static<typeof UpdateWebhookBody>;

export const WebhookEndpoint = Type.Object(
  {
    id: Type.String(),
    url: Type.String(),
    events: Type.Array(Type.String()),
    description: Nullable(Type.String()),
    enabled: Type.Boolean(),
    secret: Type.Optional(
      Type.String({
        description:
          'Only in the answers to create and to a `rotate_secret` update: keep it, it is not shown again. Verify `webhook-signature` = `v1,` + base64(HMAC-SHA256(base64-decoded secret, `${webhook-id}.${webhook-timestamp}.${body}`)).',
      }),
    ),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'WebhookEndpoint' },
);

export const WebhookDelivery = Type.Object(
  {
    id: Type.String({ description: 'The delivery (one event to this endpoint).' }),
    event_id: Type.String({ description: 'The `webhook-id` header: the same on every retry, so receivers drop duplicates.' }),
    event_type: Type.String({ description: 'The event `type`, or `webhook.test` for a test delivery.' }),
    status: Type.String({
      enum: [...DELIVERY_STATUSES],
      description:
        '`pending` (waiting for its next attempt), `delivering`, `delivered`, `failed` (attempts exhausted, or dropped because the endpoint was deleted or disabled, or refused: see last_error).',
    }),
    attempts: Type.Integer(),
    max_attempts: Type.Integer(),
    response_status: Type.Union([Type.Integer(), Type.Null()], { description: "HTTP status of the last finished attempt's answer; null when there was none." }),
    ...deliveryProgressFields,
  },
  { $id: 'WebhookDelivery' },
);

export const ListDeliveriesQuery = Type.Object(
  {
    status: Type.Optional(Type.String({ enum: [...DELIVERY_STATUSES] })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_LIMIT, default: 20 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
  },
  { additionalProperties: false },
);
