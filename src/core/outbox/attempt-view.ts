// One delivery attempt as the API shows it (notification deliveries, webhook deliveries): its schema
// and the view of its row.
import { Type } from '@sinclair/typebox';
import type { AttemptRow } from './store.js';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

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
