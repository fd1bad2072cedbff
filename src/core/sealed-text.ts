// Values the server must read back but nobody should read from the database: the signing secrets of
// webhooks. AES-256-GCM with a fresh IV per write, under a key of the column's own (derived from
// PADDOCK_SECRETS_KEY), bound to the row it is written for (additional authenticated data), so a value
// copied to another row or column does not open. Stored as `sealed:v1:<iv>:<tag>:<ciphertext>`.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const PREFIX = 'sealed:v1:';
/** SQL `LIKE` pattern matching every sealed value, to find the ones stored before sealing. */
export const SEALED_LIKE = 'sealed:%';

export class TextSealer {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('a TextSealer needs a 32-byte key');
  }

  seal(value: string, row: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(row));
    const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
    return PREFIX + [iv, cipher.getAuthTag(), body].map((part) => part.toString('base64')).join(':');
  }

  /** A value written before sealing existed (no prefix) is answered as it is (each feature seals those at start-up). */
  open(stored: string, row: string): string {
    if (!isSealed(stored)) return stored;
    const [iv, tag, body] = stored.slice(PREFIX.length).split(':');
    if (!iv || !tag || body === undefined) throw new Error('a sealed value is damaged');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64'));
    decipher.setAAD(Buffer.from(row));
    decipher.setAuthTag(Buffer.from(tag, 'base64'));
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
  }
}

function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX);
}
