// Plain reads of the sandbox records for features that refer to sandboxes (sessions, ports and previews,
// evals, the stage worker) and must work on a server without a runtime: who owns a sandbox, where it
// runs, what status it is in. Nothing here touches a sandbox; changes go through the sandbox service.
import type { Kysely } from 'kysely';
import type { Database } from '../core/db/schema.js';
import * as store from './store.js';

/** Anything else names no sandbox (and a NUL byte would upset PostgreSQL). */
const SANDBOX_ID = /^[A-Za-z0-9_-]{1,64}$/;
/** Ids per `in (…)` list: well under SQLite's bound parameter limit. */
const IDS_PER_QUERY = 500;

/** A running sandbox as the port scanner and the preview proxy see it. */
export interface RunningSandbox {
  id: string;
  accountId: string;
  ip: string | null;
  networkMode: string;
}

/** Where a sandbox is and how it is: its server (null before it had one) and its status. */
export interface SandboxPlace {
  accountId: string;
  hostId: string | null;
  status: string;
}

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

  /** The sandbox's status whatever its account, or null when there is no such sandbox. */
  async status(id: string): Promise<string | null> {
    if (!SANDBOX_ID.test(id)) return null;
    const row = await this.db.selectFrom('sandboxes').select('status').where('id', '=', id).executeTakeFirst();
    return row?.status ?? null;
  }

  /** The sandboxes running on the server `hostId`: the ones its runtime can scan and its proxy can reach. */
  async runningOn(hostId: string): Promise<RunningSandbox[]> {
    const rows = await this.db.selectFrom('sandboxes').select(['id', 'account_id', 'ip', 'network_mode']).where('host_id', '=', hostId).where('status', '=', 'running').execute();
    return rows.map((row) => ({ id: row.id, accountId: row.account_id, ip: row.ip, networkMode: row.network_mode }));
  }

  /** How many sandboxes are live (creating, running, paused, restoring) on the server `hostId`: its node heartbeat reports it. */
  async liveOn(hostId: string): Promise<number> {
    const row = await this.db
      .selectFrom('sandboxes')
      .select((eb) => eb.fn.countAll<string | number>().as('count'))
      .where('host_id', '=', hostId)
      .where('status', 'in', store.LIVE_STATUSES)
      .executeTakeFirst();
    return Number(row?.count ?? 0);
  }

  /** Sandboxes of every account and server not destroyed yet. */
  async notDestroyed(): Promise<{ id: string; accountId: string }[]> {
    const rows = await this.db.selectFrom('sandboxes').select(['id', 'account_id']).where('status', '!=', 'destroyed').execute();
    return rows.map((row) => ({ id: row.id, accountId: row.account_id }));
  }

  /** How many sandboxes the account created per UTC day of [window.start, window.end), destroyed ones included. */
  async createdPerDay(accountId: string, window: { start: string; end: string }): Promise<Map<string, number>> {
    return new Map((await store.createdPerDay(this.db, accountId, window.start, window.end)).map((row) => [row.day, row.count]));
  }

  /** Where each of `ids` is, whatever its account; ids of no sandbox are missing from the answer. */
  async placesOf(ids: readonly string[]): Promise<Map<string, SandboxPlace>> {
    const places = new Map<string, SandboxPlace>();
    const plausible = [...new Set(ids)].filter((id) => SANDBOX_ID.test(id));
    for (let i = 0; i < plausible.length; i += IDS_PER_QUERY) {
      const rows = await this.db
        .selectFrom('sandboxes')
        .select(['id', 'account_id', 'host_id', 'status'])
        .where('id', 'in', plausible.slice(i, i + IDS_PER_QUERY))
        .execute();
      for (const row of rows) places.set(row.id, { accountId: row.account_id, hostId: row.host_id, status: row.status });
    }
    return places;
  }
}
