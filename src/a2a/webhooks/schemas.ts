// Request and response shapes of task webhooks: they validate input and document the API.
import { Type, type Static } from '@sinclair/typebox';
import { deliveryProgressFields } from '../../core/outbox/attempt-view.js';
import { DELIVERY_STATUSES } from '../../core/outbox/store.js';
import { TASK_WEBHOOK_EVENTS } from '../contract.js';
import { SECRET_MAX_LENGTH, SECRET_MIN_LENGTH } from './signature.js';

export const MAX_PAGE_LIMIT = 100;

export const SIGNING =
  'Each change is POSTed as JSON, always in this order and without whitespace: `{"event","timestamp","task":{"id","agent_id","status","status_message","output"},"signature"}`. `timestamp` is when the change committed (ISO 8601; the same on every retry). `signature` = `sha256=` + hex HMAC-SHA256, keyed with the webhook\'s secret (its UTF-8 bytes), of the string `<timestamp>.<event>.<task>` where `<task>` is the `task` JSON exactly as it appears in the body (in JavaScript `JSON.stringify(body.task)`; elsewhere the bytes between `"task":` and `,"signature":`). The same value is sent in the `X-Paddock-Signature` header, with `X-Paddock-Event` (the event) and `X-Paddock-Delivery` (the delivery id: the same on every retry, so drop duplicates). Compare signatures in constant time.';
export const RETRIES =
  'A 2xx answer delivers; any other answer, a network error or no answer within PADDOCK_OUTBOX_ATTEMPT_TIMEOUT_MS is retried with exponential backoff (×4 from PADDOCK_OUTBOX_BACKOFF_BASE_MS, default 5 s) up to PADDOCK_OUTBOX_MAX_ATTEMPTS (default 8). Redirects are not followed. A delivery whose webhook was deleted by the time of an attempt is dropped (`failed`, with the reason); a URL that resolves to a non-public address at delivery time is refused (`failed`, not retried).';

const Url = Type.String({
  minLength: 1,
  maxLength: 2048,
  description:
    'Where task changes are POSTed. Must be https (http only when the server sets PADDOCK_ALLOW_HTTP_WEBHOOKS) and must not point to a private, loopback, link-local or other non-public address (unless PADDOCK_ALLOW_PRIVATE_WEBHOOKS): checked when created (400 naming `body.url`) and again, on the resolved address, at every delivery.',
});
const Events = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
  minItems: 1,
  maxItems: 16,
  description: `Task events to receive: ${TASK_WEBHOOK_EVENTS.map((name) => `\`${name}\``).join(', ')} (each the task entering that status), or \`*\` for all of them. Repeats are dropped; anything else is a 400 naming \`body.events[i]\`.`,
});
const Secret = Type.String({
  minLength: SECRET_MIN_LENGTH,
  maxLength: SECRET_MAX_LENGTH,
  pattern: '^[\\x21-\\x7e]+$',
  writeOnly: true,
  description: `The HMAC key of the signature: ${SECRET_MIN_LENGTH}-${SECRET_MAX_LENGTH} printable ASCII characters, no spaces. Optional: without it one is generated (\`a2awh_\` + 64 hex digits).`,
});

export const TaskWebhookParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const CreateTaskWebhookBody = Type.Object({ url: Url, events: Events, secret: Type.Optional(Secret) }, { additionalProperties: false });
export type CreateTaskWebhookInput = Static<typeof CreateTaskWebhookBody>;

export const TaskWebhook = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String()),
  secret: Type.Optional(Type.String({ description: 'Only in the answer to create (the one you sent, or the generated one): keep it, it is never shown again.' })),
  created_at: Type.String({ format: 'date-time' }),
});

export const TaskWebhookDelivery = Type.Object({
  id: Type.String({ description: 'The delivery (one task change to this webhook): the `X-Paddock-Delivery` header, the same on every retry.' }),
  event: Type.String({ description: 'The task event (`task.completed`, …).' }),
  task_id: Type.String(),
  status: Type.String({
    enum: [...DELIVERY_STATUSES],
    description: '`pending` (waiting for its next attempt), `delivering`, `delivered`, `failed` (attempts exhausted, dropped because the webhook was deleted, or refused: see last_error).',
  }),
  attempts: Type.Integer(),
  max_attempts: Type.Integer(),
  response_status: Type.Union([Type.Integer(), Type.Null()], { description: "HTTP status of the last finished attempt's answer; null when there was none." }),
  ...deliveryProgressFields,
});

export const ListDeliveriesQuery = Type.Object(
  {
    status: Type.Optional(Type.String({ enum: [...DELIVERY_STATUSES] })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE_LIMIT, default: 20 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000, default: 0 })),
  },
  { additionalProperties: false },
);
