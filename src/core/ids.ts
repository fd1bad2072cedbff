// Opaque, prefixed, time-sortable ids: `<prefix>_` + 10 chars of millisecond time + 16 random chars,
// all Crockford base32 (lowercase), so ids sort by creation time as plain strings.
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export type IdPrefix = 'acc' | 'key' | 'dss' | 'req' | string;

function encodeTime(ms: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

// Random bytes are drawn in batches: one request to the CSPRNG per 256 ids instead of one per id.
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let poolOffset = 0;

function encodeRandom(length: number): string {
  if (poolOffset + length > pool.length) {
    pool = randomBytes(POOL_BYTES);
    poolOffset = 0;
  }
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[pool[poolOffset + i] & 31];
  poolOffset += length;
  return out;
}

export function newId(prefix: IdPrefix, nowMs: number = Date.now()): string {
  return `${prefix}_${encodeTime(nowMs)}${encodeRandom(16)}`;
}

export function isId(prefix: IdPrefix, value: string): boolean {
  return new RegExp(`^${prefix}_[0-9a-hjkmnp-tv-z]{26}$`).test(value);
}
