// The node as GET /v1/admin/nodes shows it (NodeView in contract.ts).
import { Type } from '@sinclair/typebox';
import { Nullable, StringEnum } from '../core/schemas.js';

export const Node = Type.Object(
  {
    id: Type.String({ description: "The node's host id (PADDOCK_HOST_ID, default `<hostname>:<data dir>`): the `host_id` of the sandboxes it runs." }),
    role: StringEnum(['all', 'api', 'worker'], { description: '`all` serves the API and runs sandboxes; `api` only serves the API; `worker` only runs sandboxes.' }),
    address: Type.String({ description: 'Where other nodes reach it: an http(s):// origin (PADDOCK_NODE_ADDRESS, or derived from the listening address).' }),
    state: StringEnum(['active', 'draining', 'lost', 'stopped'], {
      description:
        '`active` takes new sandboxes; `draining` keeps its own but takes none; `lost` missed its heartbeats for the dead time and its sandboxes went `error` (`node_lost`); `stopped` left cleanly.',
    }),
    epoch: Type.Integer({ description: 'Grows each time the node registers and each time it is declared lost: a write carrying an older epoch is refused (fencing).' }),
    runtime: Nullable(Type.String({ description: '`runc` or `gvisor`; null on a node without a runtime.' })),
    capacity: Type.Object({
      cpus: Type.Integer(),
      memory_bytes: Type.Integer(),
      disk_bytes: Type.Integer({ description: "Size of the file system holding the node's data directory." }),
      max_sandboxes: Type.Integer({ description: 'PADDOCK_NODE_MAX_SANDBOXES, or one per 256 MiB of memory.' }),
    }),
    sandboxes: Type.Integer({ description: 'Live sandboxes (creating, running, paused, restoring) at its last heartbeat.' }),
    templates: Type.Array(Type.String(), { description: 'Templates built on the node (none without a runtime).' }),
    version: Type.String({ description: 'The Paddock version it runs.' }),
    started_at: Type.String({ format: 'date-time', description: 'When it last registered.' }),
    heartbeat_at: Type.String({ format: 'date-time' }),
    drained_at: Nullable(Type.String({ format: 'date-time' })),
    lost_at: Nullable(Type.String({ format: 'date-time' })),
    alive: Type.Boolean({ description: 'Its heartbeat is newer than the dead time (PADDOCK_NODE_DEAD_AFTER_SECONDS) and it is neither lost nor stopped.' }),
  },
  { description: 'A Paddock server registered in the shared database (scale-out).' },
);

export const NodeParams = Type.Object({
  id: Type.String({ minLength: 1, maxLength: 200, description: "The node's id, URL-encoded (ids contain `:` and `/`: `host:/var/lib/paddock` is `host%3A%2Fvar%2Flib%2Fpaddock`)." }),
});
