// What makes two requests "the same request" for an idempotency key: method, path with query, and the
// body as the client sent it, compared as data (key order and whitespace do not matter, values and types do).
import { createHmac } from 'node:crypto';

/** JSON with object keys sorted at every depth; `undefined` (no body) is its own value. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return 'undefined';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Buffer.isBuffer(value)) return `buffer:${value.toString('base64')}`;
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const entries = Object.keys(value)
    .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
    .sort()
    .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
  return `{${entries.join(',')}}`;
}

/** Keyed (HMAC-SHA256): a body can hold a secret value, and a plain hash of a weak one could be guessed from a database copy. */
export function requestFingerprint(key: Buffer, method: string, url: string, body: unknown): string {
  return createHmac('sha256', key).update(method).update('\0').update(url).update('\0').update(canonicalJson(body)).digest('hex');
}
