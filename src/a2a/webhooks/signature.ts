// How a task webhook body is built and signed, so a receiver can check it byte for byte. The body is
// always `{"event":…,"timestamp":…,"task":<task>,"signature":"sha256=<hex>"}` in that order, without
// whitespace, and the signature is the hex HMAC-SHA256, keyed with the webhook's secret (its UTF-8
// bytes), of the string `<timestamp>.<event>.<task>` where `<task>` is the task JSON exactly as it
// appears in the body (JSON.stringify(body.task) in JavaScript). The same value is sent as the
// X-Paddock-Signature header.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SIGNATURE_HEADER = 'x-paddock-signature';
export const SECRET_MIN_LENGTH = 16;
export const SECRET_MAX_LENGTH = 256;

/** What a task webhook says about the task. */
export interface WebhookTask {
  id: string;
  agent_id: string;
  status: string;
  status_message: string | null;
  output: unknown;
}

export function generateTaskWebhookSecret(): string {
  return 'a2awh_' + randomBytes(32).toString('hex');
}

/** `sha256=` + hex HMAC-SHA256(secret, `<timestamp>.<event>.<taskJson>`). */
export function signTaskWebhook(secret: string, timestamp: string, event: string, taskJson: string): string {
  return 'sha256=' + createHmac('sha256', secret).update(`${timestamp}.${event}.${taskJson}`).digest('hex');
}

/** The body as sent and its signature. */
export function taskWebhookBody(secret: string, event: string, timestamp: string, task: WebhookTask): { body: string; signature: string } {
  const taskJson = JSON.stringify(task);
  const signature = signTaskWebhook(secret, timestamp, event, taskJson);
  const body = `{"event":${JSON.stringify(event)},"timestamp":${JSON.stringify(timestamp)},"task":${taskJson},"signature":${JSON.stringify(signature)}}`;
  return { body, signature };
}

/** What a receiver does: true when `signature` (the header or the body's field) signs the body received. */
export function verifyTaskWebhook(secret: string, rawBody: string, signature: string): boolean {
  let parsed: { event?: unknown; timestamp?: unknown; task?: unknown };
  try {
    parsed = JSON.parse(rawBody);
  } catch {
    return false;
  }
  if (typeof parsed.event !== 'string' || typeof parsed.timestamp !== 'string' || parsed.task === undefined) return false;
  const expected = Buffer.from(signTaskWebhook(secret, parsed.timestamp, parsed.event, JSON.stringify(parsed.task)));
  const given = Buffer.from(signature);
  return given.length === expected.length && timingSafeEqual(given, expected);
}
