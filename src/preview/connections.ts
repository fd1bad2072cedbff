// The front door of every TCP connection to the server: it reads the first request head before Node's
// HTTP server does, so a connection to a preview can be relayed to the sandbox as a whole (relay.ts)
// rather than proxied request by request. Everything else — API requests, WebSocket upgrades, the
// preview login form, anything the strict head parser does not accept — is handed to Node's own
// connection handling with the bytes read so far put back, and dispatch.ts routes it as before.
import type { Server } from 'node:http';
import type net from 'node:net';
import tls from 'node:tls';
import type { PreviewHosts } from './host.js';
import { LOGIN_PATH } from './password-page.js';
import type { PreviewProxy } from './proxy.js';
import { canHandOver } from './relay-process.js';
import { headEnd, MAX_HEAD_BYTES, parseRequestHead } from '../core/net/request-head.js';

type ConnectionListener = (socket: net.Socket) => void;

export class PreviewConnections {
  private readonly reading = new Set<net.Socket>();
  private nodeListeners: ConnectionListener[] = [];

  constructor(
    private readonly server: Server,
    private readonly hosts: PreviewHosts,
    private readonly proxy: PreviewProxy,
  ) {}

  /** Call once every plugin has registered its listeners (Fastify's onReady). Over TLS the bytes are
   * encrypted at this point, so an HTTPS server keeps the per-request proxy only. */
  start(): void {
    if (this.server instanceof tls.Server) return;
    this.nodeListeners = this.server.listeners('connection') as ConnectionListener[];
    this.server.removeAllListeners('connection');
    this.server.on('connection', (socket: net.Socket) => this.readFirstHead(socket, null));
  }

  /** Closes connections that have not sent a complete first request yet. */
  close(): void {
    for (const socket of this.reading) socket.destroy();
  }

  private readFirstHead(socket: net.Socket, buffered: Buffer | null): void {
    if (buffered && this.decide(socket, buffered)) return;
    this.reading.add(socket);
    const onData = (chunk: Buffer) => {
      buffered = buffered ? Buffer.concat([buffered, chunk]) : chunk;
      if (buffered.length <= MAX_HEAD_BYTES && headEnd(buffered, 0) === -1) return;
      stopReading();
      if (!this.decide(socket, buffered)) this.toNode(socket, buffered);
    };
    const onGone = () => {
      stopReading();
      socket.destroy();
    };
    const onTimeout = () => onGone();
    const stopReading = () => {
      this.reading.delete(socket);
      socket.removeListener('data', onData);
      socket.removeListener('end', onGone);
      socket.removeListener('error', onGone);
      socket.removeListener('timeout', onTimeout);
      socket.setTimeout(0);
    };
    socket.on('data', onData);
    socket.on('end', onGone);
    socket.on('error', onGone);
    socket.on('timeout', onTimeout);
    socket.setTimeout(this.server.headersTimeout || 60_000);
    socket.resume();
  }

  /** Serves a complete first head when it is a preview the relay carries; false leaves the connection to the caller. */
  private decide(socket: net.Socket, buffered: Buffer): boolean {
    const end = headEnd(buffered, 0);
    if (end === -1) return false;
    const head = parseRequestHead(buffered, 0, end);
    const target = head ? this.hosts.parse(head.headers.host) : null;
    if (!head || !target || head.needsNode || (head.method === 'POST' && head.url.split('?')[0] === LOGIN_PATH) || !canHandOver(socket)) {
      this.toNode(socket, buffered);
      return true;
    }
    socket.pause();
    // A request the relay could not carry as the first goes to Node's server, so it is not sent back and forth.
    void this.proxy.relayConnection(socket, head, buffered, target, (client, leftover, first) =>
      first ? this.toNode(client, leftover) : this.readFirstHead(client, leftover.length ? leftover : null),
    );
    return true;
  }

  private toNode(socket: net.Socket, buffered: Buffer): void {
    socket.pause();
    if (buffered.length) socket.unshift(buffered);
    for (const listener of this.nodeListeners) listener.call(this.server, socket);
    socket.resume();
  }
}
