// Kept-alive connections to the workers, per worker address: one is taken per forwarded request and given
// back when its answer is complete. An idle one is closed after a few seconds, well before a worker would
// close it (its keep-alive time is Fastify's 72 s), so one is rarely found closed just as it is reused.
import net from 'node:net';

const IDLE_MS = 4000;

const LISTENED = ['close', 'error', 'data', 'end', 'timeout'];

export class UpstreamPool {
  private readonly idle = new Map<string, net.Socket[]>();

  constructor(private readonly connectTimeoutMs: number) {}

  /** A kept-alive connection to the worker, or a new one (destroyed with ETIMEDOUT if not connected in time). */
  take(hostname: string, port: number): net.Socket {
    const key = `${hostname}:${port}`;
    const sockets = this.idle.get(key);
    while (sockets?.length) {
      const socket = sockets.pop()!;
      for (const event of LISTENED) socket.removeAllListeners(event);
      socket.setTimeout(0);
      if (!socket.destroyed && socket.readyState === 'open') return socket;
      socket.destroy();
    }
    const socket = net.connect({ host: hostname, port, noDelay: true, keepAlive: true, keepAliveInitialDelay: 1000 });
    const timer = setTimeout(() => socket.destroy(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' })), this.connectTimeoutMs);
    socket.once('connect', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
    return socket;
  }

  /** A connection whose answer is complete, for the next request to the same worker. */
  giveBack(hostname: string, port: number, socket: net.Socket): void {
    if (socket.destroyed) return;
    const key = `${hostname}:${port}`;
    const sockets = this.idle.get(key) ?? [];
    this.idle.set(key, sockets);
    for (const event of LISTENED) socket.removeAllListeners(event);
    const drop = () => {
      const at = sockets.indexOf(socket);
      if (at !== -1) sockets.splice(at, 1);
      socket.destroy();
    };
    // Bytes from an idle worker connection mean it is not in step any more.
    socket.once('data', drop);
    socket.once('end', drop);
    socket.once('error', drop);
    socket.once('close', drop);
    socket.setTimeout(IDLE_MS, drop);
    socket.resume();
    sockets.push(socket);
  }

  close(): void {
    for (const sockets of this.idle.values()) for (const socket of sockets.splice(0)) socket.destroy();
  }
}
