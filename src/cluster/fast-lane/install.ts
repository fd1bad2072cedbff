// The fast lane of an api node (connection.ts): it takes the server's connections over, and gives Node's
// HTTP server only what the lane does not pass on to a worker itself.
import type { Server } from 'node:http';
import type net from 'node:net';
import type { Duplex } from 'node:stream';
import tls from 'node:tls';
import { LaneConnection, type LaneDeps } from './connection.js';
import { UpstreamPool } from './upstream-pool.js';

export interface FastLane {
  /** Ends the connections that are between requests (the server is closing). */
  closeIdle(): void;
  /** Closes the kept-alive connections to the workers. */
  close(): void;
}

export function installFastLane(server: Server, deps: Pick<LaneDeps, 'route' | 'hold' | 'closing'> & { connectTimeoutMs: number }): FastLane | null {
  // Over TLS the bytes are encrypted at this point.
  if (server instanceof tls.Server) return null;
  const nodeListeners = server.listeners('connection') as Array<(socket: Duplex) => void>;
  server.removeAllListeners('connection');
  const pool = new UpstreamPool(deps.connectTimeoutMs);
  const connections = new Set<LaneConnection>();
  const laneDeps: LaneDeps = {
    ...deps,
    pool,
    get keepAliveMs() {
      return server.keepAliveTimeout || 5000;
    },
    serveHere: (socket) => {
      for (const listener of nodeListeners) listener.call(server, socket);
    },
    forget: (connection) => connections.delete(connection),
  };
  server.on('connection', (socket: net.Socket) => connections.add(new LaneConnection(socket, laneDeps)));
  return {
    closeIdle: () => {
      for (const connection of connections) connection.closeIfIdle();
    },
    close: () => pool.close(),
  };
}
