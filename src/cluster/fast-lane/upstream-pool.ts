// Kept-alive connections to the workers, per worker address: one is taken per forwarded request and given
// back when its answer is complete. A connection's listeners are added once, when it opens; the request it
// carries says where its bytes and its end go. An idle one is closed after a few seconds, well before a
// worker would close it (its keep-alive time is Fastify's 72 s), so one is rarely found closed as it is reused.
import net from 'node:net';

const IDLE_MS = 4000;

/** Where a connection's bytes and its end go while it carries a request. */
export interface UpstreamRequest {
  data(chunk: Buffer): void;
  /** The connection ended or failed before the request gave it back. */
  gone(error?: Error): void;
}

/** One connection to a worker. */
export class Upstream {
  private request: UpstreamRequest | null = null;
  idleSinceMs = 0;

  constructor(
    readonly socket: net.Socket,
    readonly key: string,
    private readonly lost: (upstream: Upstream) => void,
  ) {
    // Bytes from an idle connection mean it is not in step any more.
    socket.on('data', (chunk: Buffer) => (this.request ? this.request.data(chunk) : socket.destroy()));
    socket.on('end', () => this.ended());
    socket.on('error', (error) => this.ended(error));
    socket.on('close', () => this.ended());
  }

  carry(request: UpstreamRequest | null): void {
    this.request = request;
  }

  reusable(nowMs: number): boolean {
    return !this.socket.destroyed && this.socket.readyState === 'open' && nowMs - this.idleSinceMs < IDLE_MS;
  }

  private ended(error?: Error): void {
    const request = this.request;
    this.request = null;
    this.lost(this);
    this.socket.destroy();
    request?.gone(error);
  }
}

export class UpstreamPool {
  private readonly idle = new Map<string, Upstream[]>();
  private sweep: NodeJS.Timeout | null = null;

  constructor(private readonly connectTimeoutMs: number) {}

  /** A kept-alive connection to the worker, or a new one (destroyed with ETIMEDOUT if not connected in time), carrying `request`. */
  take(hostname: string, port: number, request: UpstreamRequest): Upstream {
    const key = `${hostname}:${port}`;
    const idle = this.idle.get(key);
    const nowMs = Date.now();
    while (idle?.length) {
      const upstream = idle.pop()!;
      if (!upstream.reusable(nowMs)) {
        upstream.socket.destroy();
        continue;
      }
      upstream.carry(request);
      return upstream;
    }
    const socket = net.connect({ host: hostname, port, noDelay: true, keepAlive: true, keepAliveInitialDelay: 1000 });
    const timer = setTimeout(() => socket.destroy(Object.assign(new Error('connect timed out'), { code: 'ETIMEDOUT' })), this.connectTimeoutMs);
    socket.once('connect', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
    const upstream = new Upstream(socket, key, (gone) => this.forget(gone));
    upstream.carry(request);
    return upstream;
  }

  /** A connection whose answer is complete, for the next request to the same worker. */
  giveBack(upstream: Upstream): void {
    if (upstream.socket.destroyed) return;
    upstream.carry(null);
    upstream.idleSinceMs = Date.now();
    // Paused while the client was slow to read: an idle connection must still see a worker's close.
    upstream.socket.resume();
    const idle = this.idle.get(upstream.key);
    if (idle) idle.push(upstream);
    else this.idle.set(upstream.key, [upstream]);
    this.sweep ??= setTimeout(() => this.closeIdle(), IDLE_MS).unref();
  }

  close(): void {
    if (this.sweep) clearTimeout(this.sweep);
    this.sweep = null;
    for (const idle of this.idle.values()) for (const upstream of idle.splice(0)) upstream.socket.destroy();
  }

  private forget(upstream: Upstream): void {
    const idle = this.idle.get(upstream.key);
    const at = idle ? idle.indexOf(upstream) : -1;
    if (at !== -1) idle!.splice(at, 1);
  }

  /** Closes the connections idle for IDLE_MS; looks again while any is left. */
  private closeIdle(): void {
    this.sweep = null;
    const nowMs = Date.now();
    let left = 0;
    for (const idle of this.idle.values()) {
      for (const upstream of [...idle]) if (!upstream.reusable(nowMs)) upstream.socket.destroy();
      left += idle.length;
    }
    if (left) this.sweep = setTimeout(() => this.closeIdle(), IDLE_MS / 4).unref();
  }
}
