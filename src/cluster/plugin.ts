// The cluster feature in the app: the front door that forwards sandbox-bound requests to the node
// holding the sandbox and places creates (front-door.ts). Register it after every feature that adds
// server listeners (the preview front door) and before core/server-refusals' guard.
import type { IncomingMessage } from 'node:http';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { NodeDirectory } from '../nodes/contract.js';
import { PreviewHosts } from '../preview/host.js';
import type { SandboxDirectory } from '../sandboxes/directory.js';
import { PeriodicTask } from '../core/periodic-task.js';
import type { SnapshotDirectory } from '../snapshots/directory.js';
import type { FastLane } from './fast-lane/install.js';
import { routeClusterRequests } from './front-door.js';
import type { LocalAnswer } from './placement.js';

/** Hop-by-hop, or recomputed for the body as it is now. */
const NOT_REPLAYED = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade', 'te', 'trailer']);

export function registerClusterFrontDoor(
  app: FastifyInstance,
  deps: { config: Config; nodes: NodeDirectory | null; sandboxes: SandboxDirectory; snapshots: SnapshotDirectory; bodyLimitBytes: number },
): void {
  const { config } = deps;
  const previewHosts = new PreviewHosts(config, () => {
    const address = app.server.address();
    return typeof address === 'object' && address ? address.port : config.port;
  });
  let linkCutter: PeriodicTask | null = null;
  let lane: FastLane | null = null;
  let closing = false;
  app.addHook('onReady', async () => {
    const door = routeClusterRequests(app.server, {
      cluster: config.cluster,
      nodes: deps.nodes,
      hostOf: async (id) => (await deps.sandboxes.placesOf([id])).get(id)?.hostId ?? null,
      snapshotSandbox: (id) => deps.snapshots.sandboxOf(id),
      serveHere: (request, body) => serveHere(app, request, body),
      previewHosts,
      bodyLimitBytes: deps.bodyLimitBytes,
      log: app.log,
      closing: () => closing,
    });
    lane = door.lane;
    const links = door.links;
    const nodes = deps.nodes;
    if (!nodes || !config.cluster.secret) return;
    // Each heartbeat: a node declared lost meanwhile gets its forwarded terminals closed 4003 node_lost.
    linkCutter = new PeriodicTask('cutting links to lost nodes', config.cluster.heartbeatMs, () => links.cutLost(nodes, app.log), app.log);
    linkCutter.start(config.cluster.heartbeatMs);
  });
  app.addHook('preClose', async () => {
    closing = true;
    lane?.closeIdle();
  });
  app.addHook('onClose', async () => {
    linkCutter?.stop();
    lane?.close();
  });
}

/** The request through this node's own routes, in process: the client's method, path, headers and address, the body placement read. */
async function serveHere(app: FastifyInstance, request: IncomingMessage, body: Buffer): Promise<LocalAnswer> {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(request.headers)) if (value !== undefined && !NOT_REPLAYED.has(name)) headers[name] = value;
  const answer = await app.inject({
    method: (request.method ?? 'POST') as 'POST',
    url: request.url ?? '/',
    headers,
    payload: body,
    remoteAddress: request.socket.remoteAddress ?? '127.0.0.1',
  });
  const answerHeaders: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(answer.headers)) if (value !== undefined && !NOT_REPLAYED.has(name)) answerHeaders[name] = Array.isArray(value) ? value : String(value);
  answerHeaders['content-length'] = String(answer.rawPayload.length);
  return { status: answer.statusCode, headers: answerHeaders, body: answer.rawPayload };
}
