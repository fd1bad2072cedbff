// Which node serves a request. Reading sandboxes (the list, one sandbox, its timeline) is served where it
// arrives, from the database. Other sandbox-bound requests (/v1/sandboxes/{id}/…, preview hosts) go to the
// node holding the sandbox when another node holds it and is alive, and requests for one snapshot to the
// node whose disk holds its archive (its sandbox's node). On an `api` node (no runtime) every request that
// needs a runtime goes to an alive worker, the sandbox's own first. Everything else, and whatever cannot
// be placed elsewhere, is served here, where the local routes answer as they always do (after
// authentication: a snapshot whose node is away is the snapshot service's 503, not the front door's).
import type { NodeRole } from '../config.js';
import type { NodeDirectory, NodeView } from '../nodes/contract.js';
import type { PreviewTarget } from '../preview/host.js';
import type { ClusterRefusal } from './answers.js';

/** What a request needs: one sandbox, one snapshot, a new sandbox, or just some runtime (lists, templates). */
export type SandboxBound = { kind: 'sandbox'; sandboxId: string } | { kind: 'snapshot'; snapshotId: string } | { kind: 'create' } | { kind: 'runtime' };

export type Route = { kind: 'local' } | { kind: 'forward'; node: NodeView } | { kind: 'place' } | { kind: 'refuse'; refusal: ClusterRefusal };

const SANDBOX_PATH = /^\/v1\/sandboxes\/([^/?#]+)(?:[/?#]|$)/;
const SANDBOX_COLLECTION = /^\/v1\/sandboxes\/?(?:[?#]|$)/;
/** The list, one sandbox, its timeline: database reads every node answers itself (sandboxes/read-routes.ts). */
const SANDBOX_READ = /^\/v1\/sandboxes(?:\/[^/?#]+(?:\/events)?)?\/?(?:[?#]|$)/;
const SNAPSHOT_PATH = /^\/v1\/(?:snapshots|snapshot-downloads)\/([^/?#]+)(?:[/?#]|$)/;
const RUNTIME_PATHS = /^\/v1\/(?:snapshots|snapshot-downloads|templates)(?:[/?#]|$)/;
/** How long a node's liveness is trusted between look-ups (the dead time is seconds). */
const NODE_CACHE_MS = 1000;
/** How many sandboxes' nodes are remembered; a sandbox's node never changes once set (sandboxes.host_id). */
const HOSTS_REMEMBERED = 10_000;

export function sandboxBound(method: string, url: string, preview: PreviewTarget | null): SandboxBound | null {
  if (preview) return { kind: 'sandbox', sandboxId: preview.sandboxId };
  if ((method === 'GET' || method === 'HEAD') && SANDBOX_READ.test(url)) return null;
  const one = SANDBOX_PATH.exec(url);
  if (one) return { kind: 'sandbox', sandboxId: decoded(one[1]) };
  if (SANDBOX_COLLECTION.test(url)) return method === 'POST' ? { kind: 'create' } : { kind: 'runtime' };
  const snapshot = SNAPSHOT_PATH.exec(url);
  if (snapshot) return { kind: 'snapshot', snapshotId: decoded(snapshot[1]) };
  return RUNTIME_PATHS.test(url) ? { kind: 'runtime' } : null;
}

/** A path segment as the routes will see it; one that does not decode names nothing (the local 404/400 says so). */
function decoded(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

const noWorker: ClusterRefusal = { status: 502, code: 'node_unreachable', message: 'no worker node is alive to serve this: retry shortly' };

export class ClusterRouting {
  private readonly cache = new Map<string, { node: NodeView | null; atMs: number }>();
  /** Sandbox id → its node id: the database read it saves is most of a forwarded request's cost. */
  private readonly hosts = new Map<string, string>();

  constructor(
    private readonly role: NodeRole,
    private readonly nodes: NodeDirectory,
    /** The node id holding the sandbox (null: no such sandbox, or it never had one). */
    private readonly lookUpHost: (sandboxId: string) => Promise<string | null>,
    /** The sandbox a snapshot was taken of (null: no such snapshot): its archive is on that sandbox's node. */
    private readonly snapshotSandbox: (snapshotId: string) => Promise<string | null>,
  ) {}

  async route(bound: SandboxBound): Promise<Route> {
    if (bound.kind === 'create') {
      if (this.role === 'api') return { kind: 'place' };
      if (this.role === 'worker') return { kind: 'local' };
      const workers = await this.nodes.workers();
      return workers.some((node) => node.id !== this.nodes.selfId) ? { kind: 'place' } : { kind: 'local' };
    }
    if (bound.kind === 'sandbox' || bound.kind === 'snapshot') {
      const sandboxId = bound.kind === 'sandbox' ? bound.sandboxId : await this.snapshotSandbox(bound.snapshotId);
      const hostId = sandboxId ? await this.hostOf(sandboxId) : null;
      if (hostId === this.nodes.selfId && this.role !== 'api') return { kind: 'local' };
      const owner = hostId ? await this.node(hostId) : null;
      if (this.serves(owner)) return { kind: 'forward', node: owner };
    }
    if (this.role !== 'api') return { kind: 'local' };
    const workers = (await this.nodes.workers()).filter((node) => node.alive && node.id !== this.nodes.selfId);
    if (!workers.length) return { kind: 'refuse', refusal: noWorker };
    return { kind: 'forward', node: workers[Math.floor(Math.random() * workers.length)] };
  }

  /**
   * The route of a request for a sandbox whose node, and that node's liveness, are remembered: found
   * without waiting for anything (most of what a client sends). Null: route() finds it.
   */
  known(bound: SandboxBound): Route | null {
    if (bound.kind !== 'sandbox') return null;
    const hostId = this.hosts.get(bound.sandboxId);
    if (hostId === undefined) return null;
    if (hostId === this.nodes.selfId && this.role !== 'api') return { kind: 'local' };
    const cached = this.cache.get(hostId);
    if (!cached || Date.now() - cached.atMs >= NODE_CACHE_MS) return null;
    if (this.serves(cached.node)) return { kind: 'forward', node: cached.node };
    return this.role === 'api' ? null : { kind: 'local' };
  }

  /** Another node that is alive and holds sandboxes. */
  private serves(owner: NodeView | null): owner is NodeView {
    return !!owner?.alive && owner.id !== this.nodes.selfId && owner.role !== 'api';
  }

  /** Remembered once found; an unknown id is asked again every time (it may be created by then). */
  private async hostOf(sandboxId: string): Promise<string | null> {
    const known = this.hosts.get(sandboxId);
    if (known !== undefined) return known;
    const hostId = await this.lookUpHost(sandboxId);
    if (hostId === null) return null;
    if (this.hosts.size >= HOSTS_REMEMBERED) this.hosts.delete(this.hosts.keys().next().value!);
    this.hosts.set(sandboxId, hostId);
    return hostId;
  }

  private async node(id: string): Promise<NodeView | null> {
    const cached = this.cache.get(id);
    if (cached && Date.now() - cached.atMs < NODE_CACHE_MS) return cached.node;
    const node = await this.nodes.get(id);
    this.cache.set(id, { node, atMs: Date.now() });
    return node;
  }
}
