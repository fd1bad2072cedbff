// Seals the answers kept for idempotency keys with a key derived from the secrets key: the answer to
// creating an API key holds the key's secret, and the database must never hold one in plaintext.
import type { ResponseSealer } from '../core/idempotency/hook.js';
import { decryptSecret, encryptSecret } from './cipher.js';
import { derivedKey } from './key.js';

export function responseSealer(secretsKey: Buffer): ResponseSealer {
  const key = derivedKey(secretsKey, 'paddock idempotent responses');
  const name = (idempotencyKey: string) => `idempotency-key\0${idempotencyKey}`;
  return {
    seal: (accountId, idempotencyKey, plaintext) => encryptSecret(key, accountId, name(idempotencyKey), plaintext),
    open: (accountId, idempotencyKey, sealed) => decryptSecret(key, accountId, name(idempotencyKey), sealed),
  };
}
