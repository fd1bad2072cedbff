// What the nodes feature (the registry: registration, heartbeats, drain, loss) and the cluster feature
// (placement and forwarding, src/cluster/) agree on. The nodes feature implements NodeDirectory;
// app.ts hands it to the cluster feature.
import type { NodeRole } from '../config.js';
import type { NodeState } from '../core/db/node-tables.js';

export type { NodeRole, NodeState };

/** A node as GET /v1/admin/nodes shows it. */
export interface NodeView {
  id: string;
  role: NodeRole;
  /** Where other nodes reach it (an http(s):// origin). */
  address: string;
  state: NodeState;
  epoch: number;
  /** `runc` or `gvisor`; null on an api node. */
  runtime: string | null;
  capacity: { cpus: number; memory_bytes: number; disk_bytes: number; max_sandboxes: number };
  /** Live sandboxes at its last heartbeat. */
  sandboxes: number;
  /** Templates built on the node. */
  templates: string[];
  version: string;
  started_at: string;
  heartbeat_at: string;
  drained_at: string | null;
  lost_at: string | null;
  /** The heartbeat is newer than the dead time and the node is neither lost nor stopped. */
  alive: boolean;
}

/** What placement and forwarding ask of the registry. */
export interface NodeDirectory {
  /** This process's node id (its host id). */
  readonly selfId: string;
  /** A node by id, alive or not; null when never registered. */
  get(id: string): Promise<NodeView | null>;
  /** Alive nodes that run sandboxes (role `all` or `worker`, state `active`) with room for one more,
   * running `runtime` (any when null) and having built `template` (any when null). */
  candidates(want: { runtime: string | null; template: string | null }): Promise<NodeView[]>;
  /** Alive nodes that run sandboxes, whatever their state (a draining node still serves its own). */
  workers(): Promise<NodeView[]>;
}
