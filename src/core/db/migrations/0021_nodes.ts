// The nodes of a cluster on one database (scale-out): each server process that runs sandboxes or serves
// the API registers here with its address, capacity and a heartbeat. `id` is the server's host id (the
// `host_id` of the sandboxes it runs). `epoch` grows each time the node (re)registers and each time it is
// declared lost, so a node cut off and declared lost cannot write with the epoch it had (fencing).
import type { Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('nodes')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('address', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull())
    .addColumn('epoch', 'integer', (c) => c.notNull())
    .addColumn('runtime', 'text')
    .addColumn('cpus', 'integer', (c) => c.notNull())
    .addColumn('memory_bytes', 'bigint', (c) => c.notNull())
    .addColumn('disk_bytes', 'bigint', (c) => c.notNull())
    .addColumn('max_sandboxes', 'integer', (c) => c.notNull())
    .addColumn('sandboxes', 'integer', (c) => c.notNull())
    .addColumn('templates', 'text', (c) => c.notNull())
    .addColumn('version', 'text', (c) => c.notNull())
    .addColumn('started_at', 'text', (c) => c.notNull())
    .addColumn('heartbeat_at', 'text', (c) => c.notNull())
    .addColumn('drained_at', 'text')
    .addColumn('lost_at', 'text')
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('nodes').execute();
}
