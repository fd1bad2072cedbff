// Sends preview hosts to the proxy before Fastify sees them: preview traffic is public by design and
// must not meet the API's auth guard, body parsers or limits, and a WebSocket upgrade for a preview
// must not reach @fastify/websocket's 'upgrade' listener (Node calls every listener of an event, so
// prepending one is not enough: the listeners are taken over and called only for other hosts).
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { PreviewHosts } from './host.js';
import type { PreviewProxy } from './proxy.js';

const DUPLICATE_HOST = JSON.stringify({ error: 'the request has more than one Host header' });

type RequestListener = (request: IncomingMessage, response: ServerResponse) => void;
type UpgradeListener = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

/** Call once every plugin has registered its listeners (Fastify's onReady). */
export function routePreviewHosts(server: Server, hosts: PreviewHosts, proxy: PreviewProxy): void {
  const apiRequest = server.listeners('request') as RequestListener[];
  const apiUpgrade = server.listeners('upgrade') as UpgradeListener[];
  server.removeAllListeners('request');
  server.removeAllListeners('upgrade');

  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    if (hasDuplicateHost(request)) {
      response.writeHead(400, { 'Content-Type': 'application/json; charset=utf-8', Connection: 'close' });
      return void response.end(DUPLICATE_HOST);
    }
    const target = hosts.parse(request.headers.host);
    if (target) void proxy.handleRequest(request, response, target);
    else for (const listener of apiRequest) listener.call(server, request, response);
  });
  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (hasDuplicateHost(request)) {
      const body = Buffer.from(DUPLICATE_HOST);
      return void socket.end(`HTTP/1.1 400 Bad Request\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${DUPLICATE_HOST}`);
    }
    const target = hosts.parse(request.headers.host);
    if (target) void proxy.handleUpgrade(request, socket, head, target);
    else if (apiUpgrade.length) for (const listener of apiUpgrade) listener.call(server, request, socket, head);
    else socket.destroy();
  });
}

/**
 * Node keeps the first of several Host headers and drops the rest; routing on one while something
 * behind reads another would send a request where it was not addressed (RFC 9112 asks for a 400).
 */
function hasDuplicateHost(request: IncomingMessage): boolean {
  let hosts = 0;
  const raw = request.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 4 && raw[i].toLowerCase() === 'host' && ++hosts > 1) return true;
  return false;
}
