// SQL of idempotency keys. Claiming a key is one row insert: the primary key (account, key) decides,
// in either dialect, which of several concurrent requests does the work.
import type { Kysely } from 'kysely';
import type { Database, IdempotencyKeysTable } from '../db/schema.js';

export type StoredKey = IdempotencyKeysTable;

export interface KeyClaim {
  accountId: string;
  key: string;
  fingerprint: string;
  method: string;
  path: string;
  /** When this request claimed the key: together with the key it names the claim. */
  claimedAt: Date;
}

export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  sealedBody: string;
}

export type ClaimOutcome = { kind: 'claimed' } | { kind: 'taken'; row: StoredKey };

export class IdempotencyStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly retentionMs: number,
    /** A key still unanswered this long after its request began belongs to a server that stopped mid-request. */
    private readonly abandonedAfterMs: number,
  ) {}

  /** Claims the key for this request, or answers the row that already holds it. */
  async claim(claim: KeyClaim): Promise<ClaimOutcome> {
    const now = claim.claimedAt;
    for (;;) {
      await this.db
        .deleteFrom('idempotency_keys')
        .where('account_id', '=', claim.accountId)
        .where('key', '=', claim.key)
        .where((eb) =>
          eb.or([eb('expires_at', '<=', now.toISOString()), eb.and([eb('response_status', 'is', null), eb('created_at', '<', new Date(now.getTime() - this.abandonedAfterMs).toISOString())])]),
        )
        .execute();
      const inserted = await this.db
        .insertInto('idempotency_keys')
        .values({
          account_id: claim.accountId,
          key: claim.key,
          fingerprint: claim.fingerprint,
          method: claim.method,
          path: claim.path,
          response_status: null,
          response_headers: null,
          response_body: null,
          created_at: now.toISOString(),
          completed_at: null,
          expires_at: new Date(now.getTime() + this.retentionMs).toISOString(),
        })
        .onConflict((oc) => oc.columns(['account_id', 'key']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { kind: 'claimed' };
      const row = await this.find(claim.accountId, claim.key);
      // Released between the insert and the read: try again.
      if (row) return { kind: 'taken', row };
    }
  }

  async find(accountId: string, key: string): Promise<StoredKey | undefined> {
    return this.db.selectFrom('idempotency_keys').selectAll().where('account_id', '=', accountId).where('key', '=', key).executeTakeFirst();
  }

  async complete(claim: KeyClaim, answer: StoredAnswer): Promise<void> {
    await this.db
      .updateTable('idempotency_keys')
      .set({ response_status: answer.status, response_headers: JSON.stringify(answer.headers), response_body: answer.sealedBody, completed_at: new Date().toISOString() })
      .where('account_id', '=', claim.accountId)
      .where('key', '=', claim.key)
      .where('created_at', '=', claim.claimedAt.toISOString())
      .where('response_status', 'is', null)
      .execute();
  }

  /** Frees a claimed key whose request stored no answer, so a retry does the work. */
  async release(claim: KeyClaim): Promise<void> {
    await this.db
      .deleteFrom('idempotency_keys')
      .where('account_id', '=', claim.accountId)
      .where('key', '=', claim.key)
      .where('created_at', '=', claim.claimedAt.toISOString())
      .where('response_status', 'is', null)
      .execute();
  }

  /** Removes expired keys; answers how many. */
  async prune(now = new Date()): Promise<number> {
    const result = await this.db.deleteFrom('idempotency_keys').where('expires_at', '<=', now.toISOString()).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
