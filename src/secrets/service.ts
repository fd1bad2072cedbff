// Account secrets: set, list, delete, and the decrypted values a sandbox is created with. A value is
// never returned by the API once set, never logged, and masked in recorded command output.
import type { Kysely } from 'kysely';
import type { Database } from '../core/db/schema.js';
import { Invalid, LimitExceeded, NotFound } from '../core/errors.js';
import { nowIso } from '../core/time.js';
import { decryptSecret, encryptSecret } from './cipher.js';
import * as store from './store.js';

export const MAX_SECRETS_PER_ACCOUNT = 200;

export class SecretService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly key: Buffer,
  ) {}

  async put(accountId: string, name: string, value: string) {
    const now = nowIso();
    const existing = await store.findSecret(this.db, accountId, name);
    if (!existing && (await store.countSecrets(this.db, accountId)) >= MAX_SECRETS_PER_ACCOUNT) {
      throw new LimitExceeded(`an account can hold ${MAX_SECRETS_PER_ACCOUNT} secrets; delete one first`, 'quota_exceeded');
    }
    const row = { account_id: accountId, name, ciphertext: encryptSecret(this.key, accountId, name, value), created_at: existing?.created_at ?? now, updated_at: now };
    await store.upsertSecret(this.db, row);
    return { row: { name, created_at: row.created_at, updated_at: row.updated_at }, created: !existing };
  }

  list(accountId: string) {
    return store.listSecrets(this.db, accountId);
  }

  async get(accountId: string, name: string) {
    const row = await store.findSecret(this.db, accountId, name);
    if (!row) throw new NotFound('secret');
    return { name: row.name, created_at: row.created_at, updated_at: row.updated_at };
  }

  async delete(accountId: string, name: string): Promise<void> {
    if (!(await store.deleteSecret(this.db, accountId, name))) throw new NotFound('secret');
  }

  /** The names among `names` the account has no secret for (nothing is decrypted). */
  async missing(accountId: string, names: readonly string[]): Promise<string[]> {
    if (!names.length) return [];
    const rows = await store.findSecrets(this.db, accountId, names);
    return names.filter((name) => !rows.some((row) => row.name === name));
  }

  /** Decrypted values by name; `field` is named in the 400 when one does not exist. */
  async values(accountId: string, names: readonly string[], field = 'body.secrets'): Promise<Record<string, string>> {
    if (!names.length) return {};
    const rows = await store.findSecrets(this.db, accountId, names);
    const missing = names.filter((name) => !rows.some((row) => row.name === name));
    if (missing.length) throw new Invalid(field, `names secrets that do not exist: ${missing.join(', ')} (create them with PUT /v1/secrets/{name})`);
    return Object.fromEntries(rows.map((row) => [row.name, decryptSecret(this.key, accountId, row.name, row.ciphertext)]));
  }
}
