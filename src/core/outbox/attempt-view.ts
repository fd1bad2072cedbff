// A delivery's progress and its attempts as the API shows them (notification deliveries, webhook
// deliveries): the schemas both share and the view of an attempt row.
import { Type } from '@sinclair/typebox';
import { Nullable } from '../schemas.js';
import type { AttemptRow } from './store.js';

export const DeliveryAttempt = Type.Object({
  attempt: Type.Integer({ description: '1 for the first.' }),
  started_at: Type.String({ format: 'date-time' }),
  finished_at: Nullable(Type.String({ format: 'date-time' })),
  outcome: Type.String({ enum: ['in_progress', 'delivered', 'failed', 'abandoned'], description: '`abandoned`: the server stopped during the attempt; the delivery was tried again.' }),
  status_code: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status, or SMTP reply code for email.' }),
  error: Nullable(Type.String()),
  response: Nullable(Type.String({ description: "The first KiB of the receiver's answer." })),
  duration_ms: Type.Union([Type.Integer(), Type.Null()]),
});

/** The fields every delivery view ends with: its retries so far and each attempt. */
export const deliveryProgressFields = {
  next_attempt_at: Nullable(Type.String({ format: 'date-time' })),
  last_error: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
  delivered_at: Nullable(Type.String({ format: 'date-time' })),
  attempt_history: Type.Array(DeliveryAttempt),
};

export function attemptView(row: AttemptRow) {
  return {
    attempt: row.attempt,
    started_at: row.started_at,
    finished_at: row.finished_at,
    outcome: row.outcome ?? 'in_progress',
    status_code: row.status_code,
    error: row.error,
    response: row.response_excerpt,
    duration_ms: row.duration_ms,
  };
}
