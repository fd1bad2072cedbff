// The cluster front door: once every plugin has added its listeners (Fastify's onReady), it takes over
// the server's 'request' and 'upgrade' listeners — the preview front door's, or Fastify's on a node
// without a runtime — and sends sandbox-bound requests to the node that serves them (routing.ts),
// creates to placement (placement.ts), and everything else to the listeners it took over. A request
// another node signed is always served here. core/server-refusals.ts's guard is added after it and
// stands in front.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import type { ClusterConfig } from '../config.js';
import { rememberClientAddress } from '../core/client-address.js';
import type { RequestHead } from '../core/net/request-head.js';
import type { NodeDirectory, NodeView } from '../nodes/contract.js';
import type { PreviewHosts } from '../preview/host.js';
import { refuseRequest, refuseUpgrade, unreachable, type ClusterRefusal } from './answers.js';
import { installFastLane, type FastLane } from './fast-lane/install.js';
import type { LaneTarget } from './fast-lane/connection.js';
import { CONNECT_TIMEOUT_MS, forwardRequest, forwardUpgrade, targetOf, type Hop } from './forward.js';
import { NodeLinks } from './node-links.js';
import { NodeSigner, stripNodeHeaders, VerifiedSignatures, verifyNodeRequest } from './node-auth.js';
import { placeCreate, type PlacementDeps } from './placement.js';
import { ClusterRouting, sandboxBound, type Route, type SandboxBound } from './routing.js';

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;
type UpgradeListener = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

export interface ClusterFrontDoorDeps {
  cluster: ClusterConfig;
  /** The registry; null when the node keeps no registry (nothing is forwarded). */
  nodes: NodeDirectory | null;
  hostOf: (sandboxId: string) => Promise<string | null>;
  /** The sandbox a snapshot was taken of (its archive is on that sandbox's node). */
  snapshotSandbox: (snapshotId: string) => Promise<string | null>;
  /** Serves a create on this node, its body already read (placement's turn for this node). */
  serveHere: PlacementDeps['serveHere'];
  previewHosts: PreviewHosts;
  bodyLimitBytes: number;
  log: FastifyBaseLogger;
  /** The server is closing: the fast lane passes no new request on. */
  closing: () => boolean;
}

/** What the signed node headers say about a request: refused (a bad signature), a node's, or a client's. */
function admitNodeHeaders(request: IncomingMessage, secret: Buffer | null, verified: VerifiedSignatures): ClusterRefusal | 'node' | 'client' {
  if (!secret) {
    stripNodeHeaders(request.headers);
    return 'client';
  }
  const verdict = verifyNodeRequest(secret, request.method ?? 'GET', request.url ?? '/', request.headers, Date.now(), verified);
  if (verdict.kind === 'unsigned') return 'client';
  if (verdict.kind === 'invalid') return { status: 401, code: 'node_auth_failed', message: `node-to-node request refused: ${verdict.reason}` };
  rememberClientAddress(request, verdict.request.clientAddress);
  return 'node';
}

/**
 * Call once every plugin has registered its listeners (Fastify's onReady). Returns the node links (the
 * caller cuts those to lost nodes now and then: NodeLinks.cutLost) and, on an api node, its fast lane.
 */
export function routeClusterRequests(server: Server, deps: ClusterFrontDoorDeps): { links: NodeLinks; lane: FastLane | null } {
  const localRequest = server.listeners('request') as RequestListener[];
  const localUpgrade = server.listeners('upgrade') as UpgradeListener[];
  server.removeAllListeners('request');
  server.removeAllListeners('upgrade');
  const { cluster, nodes } = deps;
  const secret = cluster.secret;
  const links = new NodeLinks();
  const retryAfterSeconds = Math.max(1, Math.ceil(cluster.heartbeatMs / 1000));
  const routing = nodes && secret ? new ClusterRouting(cluster.role, nodes, deps.hostOf, deps.snapshotSandbox) : null;

  const serveLocally = (request: IncomingMessage, response: ServerResponse) => {
    for (const listener of localRequest) listener.call(server, request, response);
  };
  const upgradeLocally = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (localUpgrade.length) for (const listener of localUpgrade) listener.call(server, request, socket, head);
    else refuseUpgrade(request, socket, { status: 404, code: 'not_found', message: `no WebSocket at ${request.url?.split('?')[0] ?? '/'} on this node` });
  };
  const signer = nodes && secret ? new NodeSigner(secret, nodes.selfId) : null;
  const verified = new VerifiedSignatures();
  const sign = (method: string, path: string, clientAddress: string, placed: boolean) => signer!.sign(method, path, clientAddress, placed);
  const hopTo = (request: IncomingMessage, node: NodeView, placed: boolean): Hop => {
    const clientAddress = request.socket.remoteAddress ?? '';
    return { address: node.address, signed: sign(request.method ?? 'GET', request.url ?? '/', clientAddress, placed), clientAddress, nodeId: node.id, links };
  };
  const lookUp = async (bound: SandboxBound): Promise<Route> => {
    try {
      return await routing!.route(bound);
    } catch (error) {
      deps.log.error({ err: error }, 'cluster routing failed');
      return cluster.role === 'api' ? { kind: 'refuse', refusal: unreachable('the node registry could not be read') } : { kind: 'local' };
    }
  };
  /** The route, found at once when the sandbox's node is remembered (no promise to wait for). */
  const routeOf = (method: string, url: string, host: string | undefined): Route | Promise<Route> => {
    const bound = routing ? sandboxBound(method, url, deps.previewHosts.parse(host)) : null;
    if (!bound || !routing) return { kind: 'local' };
    return routing.known(bound) ?? lookUp(bound);
  };
  const decide = (request: IncomingMessage) => Promise.resolve(routeOf(request.method ?? 'GET', request.url ?? '/', request.headers.host));

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const admitted = admitNodeHeaders(request, secret, verified);
    if (admitted === 'node') return serveLocally(request, response);
    if (admitted !== 'client') return refuseRequest(request, response, admitted);
    if (!routing) return serveLocally(request, response);
    void decide(request).then(async (route) => {
      if (route.kind === 'local') serveLocally(request, response);
      else if (route.kind === 'refuse') refuseRequest(request, response, route.refusal);
      else if (route.kind === 'forward') forwardRequest(request, response, hopTo(request, route.node, false));
      else
        await placeCreate(request, response, {
          nodes: nodes!,
          hopTo: (req, node) => hopTo(req, node, true),
          preferSelf: cluster.role === 'all',
          serveHere: deps.serveHere,
          bodyLimitBytes: deps.bodyLimitBytes,
          retryAfterSeconds,
        }).catch((error: unknown) => {
          deps.log.error({ err: error }, 'placement failed');
          refuseRequest(request, response, unreachable('placement failed'));
        });
    });
  });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const admitted = admitNodeHeaders(request, secret, verified);
    if (admitted === 'node' || (admitted === 'client' && !routing)) return upgradeLocally(request, socket, head);
    if (admitted !== 'client') return refuseUpgrade(request, socket, admitted);
    void decide(request).then((route) => {
      if (route.kind === 'forward') forwardUpgrade(request, socket, head, hopTo(request, route.node, false));
      else if (route.kind === 'refuse') refuseUpgrade(request, socket, route.refusal);
      else upgradeLocally(request, socket, head);
    });
  });
  /** Where the fast lane passes a request on; anything but a plain forward it leaves to the listeners above. */
  const laneTargetOf = (route: Route, head: RequestHead, clientAddress: string): LaneTarget | null => {
    if (route.kind !== 'forward') return null;
    const { protocol, hostname, port } = targetOf(route.node.address);
    if (protocol !== 'http:') return null;
    return { nodeId: route.node.id, hostname, port: Number(port), signed: sign(head.method, head.url, clientAddress, false) };
  };
  const laneTarget = (head: RequestHead, clientAddress: string): LaneTarget | null | Promise<LaneTarget | null> => {
    const route = routeOf(head.method, head.url, head.headers.host);
    return route instanceof Promise ? route.then((found) => laneTargetOf(found, head, clientAddress)) : laneTargetOf(route, head, clientAddress);
  };
  // An api node serves no sandbox: most of what it forwards goes through the lane, past Node's HTTP server.
  const lane =
    routing && cluster.role === 'api'
      ? installFastLane(server, {
          route: (head, clientAddress) => laneTarget(head, clientAddress),
          hold: (nodeId, cut) => links.hold(nodeId, cut),
          closing: deps.closing,
          connectTimeoutMs: CONNECT_TIMEOUT_MS,
        })
      : null;
  return { links, lane };
}
