// The forwarded streams and WebSockets open to each node, so that those to a node the registry no
// longer holds alive are cut at once. A partitioned node sends no reset: without this, a forwarded
// terminal or exec stream would stay open until TCP gave up, long after the node was declared lost.
import type { FastifyBaseLogger } from 'fastify';
import type { NodeDirectory } from '../nodes/contract.js';

export class NodeLinks {
  private readonly open = new Map<string, Set<() => void>>();

  /** Remembers an open link to `nodeId`; `cut` ends it. Returns the function that forgets it. */
  hold(nodeId: string, cut: () => void): () => void {
    let links = this.open.get(nodeId);
    if (!links) this.open.set(nodeId, (links = new Set()));
    links.add(cut);
    return () => {
      links.delete(cut);
      if (!links.size && this.open.get(nodeId) === links) this.open.delete(nodeId);
    };
  }

  /** How many links are open to `nodeId`. */
  count(nodeId: string): number {
    return this.open.get(nodeId)?.size ?? 0;
  }

  /** Cuts the links to every node the registry says is not alive (or does not know). */
  async cutLost(nodes: NodeDirectory, log: FastifyBaseLogger): Promise<void> {
    for (const nodeId of [...this.open.keys()]) {
      const node = await nodes.get(nodeId);
      if (node?.alive) continue;
      const links = [...(this.open.get(nodeId) ?? [])];
      this.open.delete(nodeId);
      log.warn({ node: nodeId, links: links.length }, 'cutting forwarded connections to a node that is no longer alive');
      for (const cut of links) cut();
    }
  }
}
