// Request and response shapes of the notification endpoints: they validate input and document the API.
import { Type, type Static } from '@sinclair/typebox';
import { deliveryProgressFields } from '../../core/outbox/attempt-view.js';
import { DELIVERY_STATUSES } from '../../core/outbox/store.js';
import { ALERT_SEVERITIES } from '../contract.js';
import { ChannelSchema, MAX_PAGE_LIMIT } from '../schemas.js';
import { SECRET_PATTERN } from '../../core/webhooks/signature.js';
import { Nullable, StringEnum } from '../../core/schemas.js';

const Limit = Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_LIMIT, default: 20 }));
const Offset = Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 }));

export const Notification = Type.Object(
  {
    id: Type.String(),
    alert_id: Nullable(Type.String({ description: 'The alert that raised it.' })),
    type: Type.String({ description: 'The alert type for alert notifications.' }),
    severity: StringEnum(ALERT_SEVERITIES),
    title: Type.String(),
    message: Type.String(),
    sandbox_id: Nullable(Type.String()),
    read: Type.Boolean(),
    read_at: Nullable(Type.String({ format: 'date-time' })),
    created_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'Notification' },
);

export const Delivery = Type.Object(
  {
    id: Type.String({ description: 'Also the `webhook-id` header of webhook deliveries, the same on every retry.' }),
    notification_id: Nullable(Type.String()),
    channel: ChannelSchema,
    target: Type.String({ description: 'Email address or URL, as configured when the notification was created.' }),
    status: StringEnum(DELIVERY_STATUSES, { description: '`pending` (waiting for its next attempt), `delivering`, `delivered`, `failed` (attempts exhausted, or refused: see last_error).' }),
    attempts: Type.Integer(),
    max_attempts: Type.Integer(),
    ...deliveryProgressFields,
  },
  { $id: 'Delivery' },
);

export const NotificationWithDeliveries = Type.Object({
  ...Notification.properties,
  deliveries: Type.Array(Type.Ref(Delivery)),
});

export const ListNotificationsQuery = Type.Object(
  {
    unread: Type.Optional(Type.Boolean({ description: 'true: only unread; false: only read; absent: both.' })),
    type: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    limit: Limit,
    offset: Offset,
  },
  { additionalProperties: false },
);
export type ListNotificationsInput = Static<typeof ListNotificationsQuery>;

export const ListDeliveriesQuery = Type.Object(
  {
    notification_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    channel: Type.Optional(ChannelSchema),
    status: Type.Optional(StringEnum(DELIVERY_STATUSES)),
    limit: Limit,
    offset: Offset,
  },
  { additionalProperties: false },
);
export type ListDeliveriesInput = Static<typeof ListDeliveriesQuery>;

const Url = Type.Union([Type.String({ minLength: 1, maxLength: 2048 }), Type.Null()]);

export const NotificationConfig = Type.Object(
  {
    channels: Type.Object({
      email: Type.Object({ enabled: Type.Boolean(), address: Nullable(Type.String()) }),
      chat_a: Type.Object({ enabled: Type.Boolean(), webhook_url: Nullable(Type.String({ description: 'A Slack-style incoming webhook URL; receives `{text, blocks}`.' })) }),
      chat_b: Type.Object({ enabled: Type.Boolean(), webhook_url: Nullable(Type.String({ description: 'A Discord-style webhook URL; receives `{content, embeds}`.' })) }),
      webhook: Type.Object({
        enabled: Type.Boolean(),
        url: Nullable(Type.String({ description: 'Receives `{type: "alert.raised", timestamp, data: <alert>}` signed per Standard Webhooks.' })),
        secret: Type.String({
          description:
            'Standard Webhooks signing secret (`whsec_` + base64), generated with the config and shown here to full-scope credentials. Verify `webhook-signature` = `v1,` + base64(HMAC-SHA256(base64-decoded secret, `${webhook-id}.${webhook-timestamp}.${body}`)).',
        }),
      }),
    }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'NotificationConfig' },
);

const Enabled = Type.Optional(Type.Boolean());

export const UpdateConfigBody = Type.Object(
  {
    channels: Type.Object(
      {
        email: Type.Optional(Type.Object({ enabled: Enabled, address: Type.Optional(Type.Union([Type.String({ format: 'email', maxLength: 254 }), Type.Null()])) }, { additionalProperties: false })),
        chat_a: Type.Optional(Type.Object({ enabled: Enabled, webhook_url: Type.Optional(Url) }, { additionalProperties: false })),
        chat_b: Type.Optional(Type.Object({ enabled: Enabled, webhook_url: Type.Optional(Url) }, { additionalProperties: false })),
        webhook: Type.Optional(
          Type.Object(
            {
              enabled: Enabled,
              url: Type.Optional(Url),
              secret: Type.Optional(Type.String({ pattern: SECRET_PATTERN, maxLength: 200, description: 'Bring your own secret: `whsec_` + base64 of 24-64 bytes.' })),
              rotate_secret: Type.Optional(Type.Boolean({ description: 'true generates a new secret; deliveries still pending are signed with it.' })),
            },
            { additionalProperties: false },
          ),
        ),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export type UpdateConfigInput = Static<typeof UpdateConfigBody>;
