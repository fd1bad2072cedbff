// Secret values at rest: AES-256-GCM with a fresh IV per write, bound to the account and name (as
// additional authenticated data), so a ciphertext copied to another row does not decrypt.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const VERSION = 'v1';

function aad(accountId: string, name: string): Buffer {
  return Buffer.from(`${accountId}\0${name}`);
}

export function encryptSecret(key: Buffer, accountId: string, name: string, value: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad(accountId, name));
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()]);
  return [VERSION, iv.toString('base64'), cipher.getAuthTag().toString('base64'), body.toString('base64')].join(':');
}

export function decryptSecret(key: Buffer, accountId: string, name: string, stored: string): string {
  const [version, iv, tag, body] = stored.split(':');
  if (version !== VERSION || !iv || !tag || body === undefined) throw new Error(`secret ${name} is stored in an unknown format`);
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
  decipher.setAAD(aad(accountId, name));
  decipher.setAuthTag(Buffer.from(tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8');
}
