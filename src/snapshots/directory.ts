// Plain reads of snapshot records for features that must find a snapshot on a server without a runtime
// (the cluster front door routes snapshot requests to the node whose disk holds the archive). Nothing
// here touches an archive; changes go through the snapshot service.
import type { Kysely } from 'kysely';
import type { Database } from '../core/db/schema.js';
import * as store from './store.js';

/** Anything else names no snapshot (and a NUL byte would upset PostgreSQL). */
const SNAPSHOT_ID = /^[A-Za-z0-9_-]{1,64}$/;

export class SnapshotDirectory {
  constructor(private readonly db: Kysely<Database>) {}

  /** The sandbox the snapshot was taken of, whatever its account; null when there is no such snapshot. */
  async sandboxOf(id: string): Promise<string | null> {
    if (!SNAPSHOT_ID.test(id)) return null;
    return (await store.findSnapshotById(this.db, id))?.sandbox_id ?? null;
  }
}
