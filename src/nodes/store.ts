// SQL of the nodes table. Every write that a stale node could make carries the epoch it read: the
// database decides who wins (fencing), never a read followed by a write.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../core/db/schema.js';
import type { NodesTable, NodeState } from '../core/db/node-tables.js';

export type NodeRow = NodesTable;

/** What a node measures about itself when it registers. */
export type NodeRegistration = Pick<NodeRow, 'id' | 'role' | 'address' | 'runtime' | 'cpus' | 'memory_bytes' | 'disk_bytes' | 'max_sandboxes' | 'templates' | 'version'> & {
  at: string;
  sandboxes: number;
};

/** Inserts or refreshes the node's row: epoch + 1, `active` unless an operator drained it (drained_at kept). */
export async function register(db: Kysely<Database>, node: NodeRegistration): Promise<{ epoch: number; state: NodeState }> {
  const { at, ...fields } = node;
  const row = await db
    .insertInto('nodes')
    .values({ ...fields, state: 'active', epoch: 1, started_at: at, heartbeat_at: at, drained_at: null, lost_at: null })
    .onConflict((conflict) =>
      conflict.column('id').doUpdateSet({
        role: fields.role,
        address: fields.address,
        runtime: fields.runtime,
        cpus: fields.cpus,
        memory_bytes: fields.memory_bytes,
        disk_bytes: fields.disk_bytes,
        max_sandboxes: fields.max_sandboxes,
        sandboxes: fields.sandboxes,
        templates: fields.templates,
        version: fields.version,
        started_at: at,
        heartbeat_at: at,
        lost_at: null,
        state: sql<NodeState>`case when nodes.drained_at is null then 'active' else 'draining' end`,
        epoch: sql<number>`nodes.epoch + 1`,
      }),
    )
    .returning(['epoch', 'state'])
    .executeTakeFirstOrThrow();
  return { epoch: Number(row.epoch), state: row.state };
}

/** The heartbeat of the node at `epoch`; false when the row moved on (declared lost, or registered again). */
export async function heartbeat(db: Kysely<Database>, id: string, epoch: number, sandboxes: number, at: string): Promise<boolean> {
  const result = await db.updateTable('nodes').set({ heartbeat_at: at, sandboxes }).where('id', '=', id).where('epoch', '=', epoch).where('state', 'in', ['active', 'draining']).executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** A clean stop of the node at `epoch`: `stopped`, so nobody declares it lost. */
export async function stop(db: Kysely<Database>, id: string, epoch: number, at: string): Promise<boolean> {
  const result = await db
    .updateTable('nodes')
    .set({ state: 'stopped', heartbeat_at: at })
    .where('id', '=', id)
    .where('epoch', '=', epoch)
    .where('state', 'in', ['active', 'draining'])
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Declares the node lost if it still is as read (same epoch, still active or draining, heartbeat before `cutoff`): one winner among sweepers. */
export async function declareLost(db: Kysely<Database>, id: string, epochRead: number, cutoff: string, at: string): Promise<boolean> {
  const result = await db
    .updateTable('nodes')
    .set({ state: 'lost', lost_at: at, epoch: sql<number>`epoch + 1` })
    .where('id', '=', id)
    .where('epoch', '=', epochRead)
    .where('state', 'in', ['active', 'draining'])
    .where('heartbeat_at', '<', cutoff)
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}

/** Nodes still counted as up (active or draining) whose heartbeat is older than `cutoff`. */
export async function silentNodes(db: Kysely<Database>, cutoff: string): Promise<NodeRow[]> {
  return db.selectFrom('nodes').selectAll().where('state', 'in', ['active', 'draining']).where('heartbeat_at', '<', cutoff).execute();
}

export async function findNode(db: Kysely<Database>, id: string): Promise<NodeRow | null> {
  return (await db.selectFrom('nodes').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
}

export async function listNodes(db: Kysely<Database>): Promise<NodeRow[]> {
  return db.selectFrom('nodes').selectAll().orderBy('id').execute();
}

/** Drains (`drained_at` set, kept when already draining) or undrains an active or draining node; the row after, or null when it is in neither state. */
export async function setDrained(db: Kysely<Database>, id: string, drainedAt: string | null): Promise<NodeRow | null> {
  const row = await db
    .updateTable('nodes')
    .set({ state: drainedAt === null ? 'active' : 'draining', drained_at: drainedAt === null ? null : sql<string>`coalesce(drained_at, ${drainedAt})` })
    .where('id', '=', id)
    .where('state', 'in', ['active', 'draining'])
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

export async function lostNodes(db: Kysely<Database>): Promise<NodeRow[]> {
  return db.selectFrom('nodes').selectAll().where('state', '=', 'lost').execute();
}
