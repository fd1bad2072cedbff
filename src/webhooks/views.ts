// Turns endpoint rows and their outbox deliveries into the shapes the API returns.
import { attemptView } from '../core/outbox/attempt-view.js';
import type { AttemptRow, DeliveryRow } from '../core/outbox/store.js';
import type { WebhookPayload } from './delivery.js';
import type { EndpointRow } from './store.js';

/** `withSecret` only in the answers that create or replace the secret. */
export function endpointView(row: EndpointRow, withSecret = false) {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    description: row.description,
    enabled: row.enabled === 1,
    ...(withSecret ? { secret: row.secret } : {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function deliveryView(row: DeliveryRow, attempts: AttemptRow[]) {
  const payload = JSON.parse(row.payload) as WebhookPayload;
  const own = attempts.filter((attempt) => attempt.delivery_id === row.id);
  const lastFinished = own.filter((attempt) => attempt.finished_at !== null).at(-1);
  return {
    id: row.id,
    event_id: payload.event_id,
    event_type: payload.body.type,
    status: row.status,
    attempts: row.attempts,
    max_attempts: row.max_attempts,
    response_status: lastFinished?.status_code ?? null,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
    last_error: row.last_error,
    created_at: row.created_at,
    updated_at: row.updated_at,
    delivered_at: row.delivered_at,
    attempt_history: own.map(attemptView),
  };
}
