// Sends preview hosts to the proxy before Fastify sees them: preview traffic is public by design and
// must not meet the API's auth guard, body parsers or limits, and a WebSocket upgrade for a preview
// must not reach @fastify/websocket's 'upgrade' listener (Node calls every listener of an event, so
// prepending one is not enough: the listeners are taken over and called only for other hosts). Requests
// with no or several Host headers never get here: core/server-refusals.ts stands in front.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { PreviewHosts } from './host.js';
import type { PreviewProxy } from './proxy.js';

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;
type UpgradeListener = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** Call once every plugin has registered its listeners (Fastify's onReady). */
export function routePreviewHosts(server: Server, hosts: PreviewHosts, proxy: PreviewProxy): void {
  const apiRequest = server.listeners('request') as RequestListener[];
  const apiUpgrade = server.listeners('upgrade') as UpgradeListener[];
  server.removeAllListeners('request');
  server.removeAllListeners('upgrade');

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const target = hosts.parse(request.headers.host);
    if (target) void proxy.handleRequest(request, response, target);
    else for (const listener of apiRequest) listener.call(server, request, response);
  });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const target = hosts.parse(request.headers.host);
    if (target) void proxy.handleUpgrade(request, socket, head, target);
    else if (apiUpgrade.length) for (const listener of apiUpgrade) listener.call(server, request, socket, head);
    else socket.destroy();
  });
}
