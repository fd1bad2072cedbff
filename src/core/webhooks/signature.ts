// Standard Webhooks signing (https://www.standardwebhooks.com): secrets are `whsec_` + base64 of 24-64
// random bytes; the signature is base64(HMAC-SHA256(secret bytes, "<id>.<timestamp>.<body>")) sent as
// `webhook-signature: v1,<signature>` with `webhook-id` and `webhook-timestamp` (epoch seconds).
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const PREFIX = 'whsec_';
export const SECRET_PATTERN = '^whsec_[A-Za-z0-9+/]+={0,2}$';

export function generateWebhookSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

/** The secret's key bytes, or null when it is not `whsec_` + base64 of 24 to 64 bytes. */
export function secretKey(secret: string): Buffer | null {
  if (!new RegExp(SECRET_PATTERN).test(secret)) return null;
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  return key.length >= 24 && key.length <= 64 ? key : null;
}

export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = secretKey(secret);
  if (!key) throw new Error('invalid webhook secret');
  return 'v1,' + createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
}

export function webhookHeaders(secret: string, id: string, body: string, now: Date = new Date()): Record<string, string> {
  const timestamp = Math.floor(now.getTime() / 1000);
  return { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': signWebhook(secret, id, timestamp, body) };
}

/** True when one of the space-separated `v1,` signatures in `header` matches (what a receiver checks). */
export function verifyWebhook(secret: string, id: string, timestampSeconds: number, body: string, header: string): boolean {
  const expected = Buffer.from(signWebhook(secret, id, timestampSeconds, body));
  return header.split(' ').some((candidate) => {
    const given = Buffer.from(candidate);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}
