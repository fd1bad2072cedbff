// The nodes of a cluster (migration 0021), beside schema.ts as a2a-tables.ts is.

export type NodeState = 'active' | 'draining' | 'lost' | 'stopped';

export interface NodesTable {
  /** The server's host id (PADDOCK_HOST_ID; the `host_id` of its sandboxes). */
  id: string;
  role: 'all' | 'api' | 'worker';
  /** Where other nodes reach it: an http(s):// origin. */
  address: string;
  /** `active` takes new sandboxes; `draining` keeps its own but takes none; `lost` missed its heartbeats
   * (its sandboxes were declared lost); `stopped` left cleanly. */
  state: NodeState;
  /** Grows on every registration and every loss: a write carrying an older epoch is refused (fencing). */
  epoch: number;
  /** `runc` or `gvisor`; null on an api node. */
  runtime: string | null;
  cpus: number;
  /** bigint: PostgreSQL answers a string; the nodes store converts. */
  memory_bytes: number | string;
  disk_bytes: number | string;
  max_sandboxes: number;
  /** Live sandboxes on the node at its last heartbeat. */
  sandboxes: number;
  /** JSON: names of the templates built on the node. */
  templates: string;
  version: string;
  started_at: string;
  heartbeat_at: string;
  drained_at: string | null;
  lost_at: string | null;
}
