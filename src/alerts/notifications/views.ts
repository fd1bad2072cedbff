// Turns notification and delivery rows into the shapes the API returns.
import { attemptView } from '../../core/outbox/attempt-view.js';
import type { AttemptRow, DeliveryRow } from '../../core/outbox/store.js';
import type { NotificationRow } from './store.js';

export function notificationView(row: NotificationRow) {
  return {
    id: row.id,
    alert_id: row.alert_id,
    type: row.type,
    severity: row.severity,
    title: row.title,
    message: row.message,
    sandbox_id: row.sandbox_id,
    read: row.read === 1,
    read_at: row.read_at,
    created_at: row.created_at,
  };
}

export function deliveryView(row: DeliveryRow, attempts: AttemptRow[]) {
  return {
    id: row.id,
    notification_id: row.source_id,
    channel: row.kind.replace(/^notification\./, ''),
    target: row.target,
    status: row.status,
    attempts: row.attempts,
    max_attempts: row.max_attempts,
    next_attempt_at: row.status === 'pending' ? row.next_attempt_at : null,
    last_error: row.last_error,
    created_at: row.created_at,
    updated_at: row.updated_at,
    delivered_at: row.delivered_at,
    attempt_history: attempts.filter((attempt) => attempt.delivery_id === row.id).map(attemptView),
  };
}
