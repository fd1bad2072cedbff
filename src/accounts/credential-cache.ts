// Keeps recently verified credentials in memory so a request costs a map lookup, not a query.
// Entries live a few seconds: revocation in this process drops them at once; another process
// sharing the database sees a revocation within `ttlMs`.
import type { Principal } from '../core/access.js';

interface Entry {
  principal: Principal;
  expiresAt: string | null;
  cachedAtMs: number;
}

export class CredentialCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs = 5_000,
    private readonly maxEntries = 10_000,
  ) {}

  get(digest: string, nowMs: number): Entry | undefined {
    const entry = this.entries.get(digest);
    if (!entry) return undefined;
    if (nowMs - entry.cachedAtMs > this.ttlMs) {
      this.entries.delete(digest);
      return undefined;
    }
    return entry;
  }

  set(digest: string, principal: Principal, expiresAt: string | null, nowMs: number): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(digest, { principal, expiresAt, cachedAtMs: nowMs });
  }

  forget(digest: string): void {
    this.entries.delete(digest);
  }

  forgetKey(keyId: string): void {
    for (const [digest, entry] of this.entries) if (entry.principal.keyId === keyId) this.entries.delete(digest);
  }

  forgetAccount(accountId: string): void {
    for (const [digest, entry] of this.entries) if (entry.principal.accountId === accountId) this.entries.delete(digest);
  }
}
