// paddock.admin: what the server's operators do besides plan requests (paddock.billing) — the nodes of a
// cluster, listed, drained and undrained.
import type { Http } from './core/http.js';
import { segment } from './core/paths.js';
import type { ResponseOf } from './core/types.js';

export type ClusterNode = ResponseOf<'/v1/admin/nodes', 'get'>[number];

export class AdminNodes {
  constructor(private readonly http: Http) {}

  /** Every node registered in the server's database, sorted by id, with `alive` computed. */
  list(): Promise<ClusterNode[]> {
    return this.http.request('GET', '/v1/admin/nodes');
  }

  /** The node keeps its sandboxes but is offered no new ones (the id may contain `:` and `/`: it is encoded). */
  drain(id: string): Promise<ClusterNode> {
    return this.http.request('POST', `/v1/admin/nodes/${segment(id)}/drain`);
  }

  /** The node takes new sandboxes again. */
  undrain(id: string): Promise<ClusterNode> {
    return this.http.request('POST', `/v1/admin/nodes/${segment(id)}/undrain`);
  }
}

export class Admin {
  /** The nodes of a cluster (operators only). */
  readonly nodes: AdminNodes;

  constructor(http: Http) {
    this.nodes = new AdminNodes(http);
  }
}
