// API key and session token values: high-entropy random strings, stored only as SHA-256 digests.
// A fast hash is right here (unlike passwords): 256 random bits cannot be guessed, and every
// request checks a key, so the check must cost microseconds.
import { createHash, randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export const API_KEY_PREFIX = 'svc_sk_';
export const SESSION_TOKEN_PREFIX = 'svc_ds_';

/** Base62 of 32 random bytes, fixed width (43 characters). */
function randomBase62(): string {
  let value = BigInt('0x' + randomBytes(32).toString('hex'));
  let out = '';
  for (let i = 0; i < 43; i++) {
    out = BASE62[Number(value % 62n)] + out;
    value /= 62n;
  }
  return out;
}

export function newApiKey(): string {
  return API_KEY_PREFIX + randomBase62();
}

export function newSessionToken(): string {
  return SESSION_TOKEN_PREFIX + randomBase62();
}

export function digestSecret(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** What lists show so a user can tell keys apart: the prefix and the first four characters. */
export function displayPrefix(key: string): string {
  return key.slice(0, API_KEY_PREFIX.length + 4);
}
