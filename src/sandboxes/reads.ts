// Reading sandboxes needs no runtime: the list, one sandbox and its timeline are rows, spend and lifecycle
// events in the shared database. The sandbox service reads through this, and a node without a runtime (an
// api node) answers the same reads with it, also while no worker is alive to forward to.
import type { SandboxSpend, SpendCalculator } from '../billing/metering/spend.js';
import type { Scope } from '../core/access.js';
import type { Database } from '../core/db/schema.js';
import type { Kysely } from 'kysely';
import { NotFound } from '../core/errors.js';
import { eventsForScope, sandboxDetail } from './detail.js';
import type { SandboxEvent } from './lifecycle/contract.js';
import type { SandboxLifecycle } from './lifecycle/lifecycle.js';
import * as store from './store.js';

export interface SandboxReads {
  list(accountId: string, options: { limit: number; offset: number; includeDestroyed: boolean }): Promise<store.SandboxRow[]>;
  /** The account's sandbox; 404 for an id it does not have. */
  get(accountId: string, id: string): Promise<store.SandboxRow>;
  /** The sandbox as GET answers it, by the caller's scope, with what it has spent so far. */
  detail(row: store.SandboxRow, scope: Scope): Promise<ReturnType<typeof sandboxDetail>>;
  /** The sandbox's lifecycle timeline, oldest first (404 for another account's sandbox). */
  events(accountId: string, id: string, scope: Scope, page: { limit: number; offset: number }): Promise<SandboxEvent[]>;
  /** The spend of a page of sandboxes in one batch (the list shows spend against budget). */
  spendOfMany(ids: readonly string[]): Promise<Map<string, SandboxSpend>>;
}

export class SandboxRecords implements SandboxReads {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly spend: SpendCalculator,
    private readonly lifecycle: SandboxLifecycle,
  ) {}

  list(accountId: string, options: { limit: number; offset: number; includeDestroyed: boolean }): Promise<store.SandboxRow[]> {
    return store.listSandboxes(this.db, accountId, options);
  }

  async get(accountId: string, id: string): Promise<store.SandboxRow> {
    const row = await store.findSandbox(this.db, accountId, id);
    if (!row) throw new NotFound('sandbox');
    return row;
  }

  async detail(row: store.SandboxRow, scope: Scope): Promise<ReturnType<typeof sandboxDetail>> {
    return sandboxDetail(row, await this.spend.ofOne(row.id), scope);
  }

  async events(accountId: string, id: string, scope: Scope, page: { limit: number; offset: number }): Promise<SandboxEvent[]> {
    const row = await this.get(accountId, id);
    return eventsForScope(row, await this.lifecycle.events(id, page), scope);
  }

  async spendOfMany(ids: readonly string[]): Promise<Map<string, SandboxSpend>> {
    return ids.length ? this.spend.of(ids) : new Map();
  }
}
