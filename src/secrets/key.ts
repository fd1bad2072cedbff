// The server's secrets key: from configuration (PADDOCK_SECRETS_KEY, required when several nodes share a
// database), else generated once into the data directory so a single node works out of the box.
import { randomBytes, hkdfSync } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

export async function loadSecretsKey(configured: Buffer | null, dataDir: string): Promise<Buffer> {
  if (configured) return configured;
  const file = path.join(dataDir, 'keys', 'secrets.key');
  const existing = await readFile(file).catch(() => null);
  if (existing?.length === 32) return existing;
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const key = randomBytes(32);
  // `wx`: two processes starting at once must not each write their own key.
  await writeFile(file, key, { mode: 0o600, flag: 'wx' }).catch(async (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  return readFile(file);
}

/** A key for one purpose derived from the secrets key, so no two uses share key material. */
export function derivedKey(secretsKey: Buffer, purpose: string): Buffer {
  return Buffer.from(hkdfSync('sha256', secretsKey, Buffer.alloc(0), purpose, 32));
}
