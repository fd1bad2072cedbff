// Turns task webhook rows and their outbox deliveries into the shapes the API returns.
import { attemptView } from '../../core/outbox/attempt-view.js';
import type { AttemptRow, DeliveryRow } from '../../core/outbox/store.js';
import type { TaskWebhookPayload } from './delivery.js';
import type { TaskWebhookRow } from './store.js';

/** `withSecret` only in the answer to create. */
export function webhookView(row: TaskWebhookRow, withSecret = false) {
  return {
    id: row.id,
    url: row.url,
    events: JSON.parse(row.events) as string[],
    ...(withSecret ? { secret: row.secret } : {}),
    created_at: row.created_at,
  };
}

export function deliveryView(row: DeliveryRow, attempts: AttemptRow[]) {
  const payload = JSON.parse(row.payload) as TaskWebhookPayload;
  const own = attempts.filter((attempt) => attempt.delivery_id === row.id);
  const lastFinished = own.filter((attempt) => attempt.finished_at !== null).at(-1);
  return {
    id: row.id,
    event: payload.event,
    task_id: payload.task.id,
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
