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
  const keepAliveMs = () => server.keepAliveTimeout || 5000;
  // One timer for every connection's keep-alive, not one armed and cleared on each at every request.
  let sweep: NodeJS.Timeout | null = null;
  const closeIdle = () => {
    sweep = null;
    const sinceMs = Date.now() - keepAliveMs();
    for (const connection of connections) connection.closeIfIdleSince(sinceMs);
    if (connections.size) sweep = setTimeout(closeIdle, keepAliveMs() / 4).unref();
  };
  const laneDeps: LaneDeps = {
    ...deps,
    pool,
    serveHere: (socket) => {
      for (const listener of nodeListeners) listener.call(server, socket);
    },
    forget: (connection) => connections.delete(connection),
  };
  server.on('connection', (socket: net.Socket) => {
    connections.add(new LaneConnection(socket, laneDeps));
    sweep ??= setTimeout(closeIdle, keepAliveMs() / 4).unref();
  });
  return {
    closeIdle: () => {
      for (const connection of connections) connection.closeIfIdle();
    },
    close: () => {
      if (sweep) clearTimeout(sweep);
      sweep = null;
      pool.close();
    },
  };
}
