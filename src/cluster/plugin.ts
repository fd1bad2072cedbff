// The cluster feature in the app: the front door that forwards sandbox-bound requests to the node
// holding the sandbox and places creates (front-door.ts). Register it after every feature that adds
// server listeners (the preview front door) and before core/server-refusals' guard.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { NodeDirectory } from '../nodes/contract.js';
import { PreviewHosts } from '../preview/host.js';
import type { SandboxDirectory } from '../sandboxes/directory.js';
import { PeriodicTask } from '../core/periodic-task.js';
import { routeClusterRequests } from './front-door.js';

export function registerClusterFrontDoor(app: FastifyInstance, deps: { config: Config; nodes: NodeDirectory | null; sandboxes: SandboxDirectory; bodyLimitBytes: number }): void {
  const { config } = deps;
  const previewHosts = new PreviewHosts(config, () => {
    const address = app.server.address();
    return typeof address === 'object' && address ? address.port : config.port;
  });
  let linkCutter: PeriodicTask | null = null;
  app.addHook('onReady', async () => {
    const links = routeClusterRequests(app.server, {
      cluster: config.cluster,
      nodes: deps.nodes,
      hostOf: async (id) => (await deps.sandboxes.placesOf([id])).get(id)?.hostId ?? null,
      previewHosts,
      bodyLimitBytes: deps.bodyLimitBytes,
      log: app.log,
    });
    const nodes = deps.nodes;
    if (!nodes || !config.cluster.secret) return;
    // Each heartbeat: a node declared lost meanwhile gets its forwarded terminals closed 4003 node_lost.
    linkCutter = new PeriodicTask('cutting links to lost nodes', config.cluster.heartbeatMs, () => links.cutLost(nodes, app.log), app.log);
    linkCutter.start(config.cluster.heartbeatMs);
  });
  app.addHook('onClose', async () => linkCutter?.stop());
}
