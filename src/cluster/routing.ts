// Which node serves a request. Sandbox-bound requests (/v1/sandboxes/{id}/…, preview hosts) go to the
// node holding the sandbox when another node holds it and is alive; on an `api` node (no runtime) every
// request that needs a runtime goes to an alive worker, the sandbox's own first. Everything else, and
// whatever cannot be placed elsewhere, is served here, where the local routes answer as they always do.
import type { NodeRole } from '../config.js';
import type { NodeDirectory, NodeView } from '../nodes/contract.js';
import type { PreviewTarget } from '../preview/host.js';
import type { ClusterRefusal } from './answers.js';

/** What a request needs: one sandbox, a new one, or just some runtime (lists, snapshots, templates). */
export type SandboxBound = { kind: 'sandbox'; sandboxId: string } | { kind: 'create' } | { kind: 'runtime' };

export type Route = { kind: 'local' } | { kind: 'forward'; node: NodeView } | { kind: 'place' } | { kind: 'refuse'; refusal: ClusterRefusal };

const SANDBOX_PATH = /^\/v1\/sandboxes\/([^/?#]+)(?:[/?#]|$)/;
const SANDBOX_COLLECTION = /^\/v1\/sandboxes\/?(?:[?#]|$)/;
const RUNTIME_PATHS = /^\/v1\/(?:snapshots|snapshot-downloads|templates)(?:[/?#]|$)/;
/** How long a node's liveness is trusted between look-ups (the dead time is seconds). */
const NODE_CACHE_MS = 1000;
/** How many sandboxes' nodes are remembered; a sandbox's node never changes once set (sandboxes.host_id). */
const HOSTS_REMEMBERED = 10_000;

export function sandboxBound(method: string, url: string, preview: PreviewTarget | null): SandboxBound | null {
  if (preview) return { kind: 'sandbox', sandboxId: preview.sandboxId };
  const one = SANDBOX_PATH.exec(url);
  if (one) return { kind: 'sandbox', sandboxId: decodeURIComponent(one[1]) };
  if (SANDBOX_COLLECTION.test(url)) return method === 'POST' ? { kind: 'create' } : { kind: 'runtime' };
  return RUNTIME_PATHS.test(url) ? { kind: 'runtime' } : null;
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
  ) {}

  async route(bound: SandboxBound): Promise<Route> {
    if (bound.kind === 'create') {
      if (this.role === 'api') return { kind: 'place' };
      if (this.role === 'worker') return { kind: 'local' };
      const workers = await this.nodes.workers();
      return workers.some((node) => node.id !== this.nodes.selfId) ? { kind: 'place' } : { kind: 'local' };
    }
    if (bound.kind === 'sandbox') {
      const hostId = await this.hostOf(bound.sandboxId);
      if (hostId === this.nodes.selfId && this.role !== 'api') return { kind: 'local' };
      const owner = hostId ? await this.node(hostId) : null;
      if (owner?.alive && owner.id !== this.nodes.selfId && owner.role !== 'api') return { kind: 'forward', node: owner };
    }
    if (this.role !== 'api') return { kind: 'local' };
    const workers = (await this.nodes.workers()).filter((node) => node.alive && node.id !== this.nodes.selfId);
    if (!workers.length) return { kind: 'refuse', refusal: noWorker };
    return { kind: 'forward', node: workers[Math.floor(Math.random() * workers.length)] };
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
