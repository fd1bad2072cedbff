// Which sandboxes an account owns, for features that refer to sandboxes (sessions) and must work on a
// server without a runtime: plain reads of the sandbox records, nothing that touches a sandbox.
import type { Kysely } from 'kysely';
import type { Database } from '../core/db/schema.js';
import * as store from './store.js';

/** Anything else names no sandbox (and a NUL byte would upset PostgreSQL). */
const SANDBOX_ID = /^[A-Za-z0-9_-]{1,64}$/;

export class SandboxDirectory {
  constructor(private readonly db: Kysely<Database>) {}

  /** The subset of `ids` that are sandboxes of the account, destroyed ones included. */
  async ownedBy(accountId: string, ids: readonly string[]): Promise<Set<string>> {
    const plausible = ids.filter((id) => SANDBOX_ID.test(id));
    if (!plausible.length) return new Set();
    return new Set(await store.ownedSandboxIds(this.db, accountId, plausible));
  }

  /** Whether only scopes that read secrets may reach inside the account's sandbox (false when there is none). */
  async confidential(accountId: string, id: string): Promise<boolean> {
    if (!SANDBOX_ID.test(id)) return false;
    return (await store.findSandbox(this.db, accountId, id))?.confidential === 1;
  }

  async exists(accountId: string, id: string): Promise<boolean> {
    return (await this.ownedBy(accountId, [id])).has(id);
  }
}
