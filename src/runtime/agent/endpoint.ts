// The host end of one sandbox's agent: a unix socket in a directory only that sandbox sees (bind-mounted
// read-only at /.paddock/run). The agent keeps idle connections open to it; each exec takes one.
import { mkdir, rm } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';

/** Where the agent finds the host's socket inside the sandbox. */
export const sandboxAgentDir = '/.paddock/run';
export const agentSocketName = 'agent.sock';
/** sockaddr_un holds 108 bytes including the terminating NUL. */
const maxSocketPathBytes = 107;
/**
 * Idle connections kept per sandbox. The agent keeps at most five; code inside the sandbox can connect
 * too, and every connection is a descriptor of this process: without a bound one sandbox exhausted the
 * server's descriptors (EMFILE on every request). Connections beyond it are closed at once.
 */
const maxIdleConnections = 16;

export class AgentEndpoint {
  private readonly server: net.Server;
  private readonly idle: net.Socket[] = [];
  private readonly waiting: ((socket: net.Socket | null) => void)[] = [];
  /** Every connection still open, idle or running a command: closing the endpoint cuts them all. */
  private readonly open = new Set<net.Socket>();
  private closed = false;

  private constructor(readonly socketPath: string) {
    this.server = net.createServer((socket) => this.offer(socket));
  }

  /** Listens at `<dir>/agent.sock`, replacing a socket left by an earlier process. */
  static async listen(dir: string): Promise<AgentEndpoint> {
    const socketPath = path.join(dir, agentSocketName);
    if (Buffer.byteLength(socketPath) > maxSocketPathBytes) {
      throw new Error(`the agent socket path ${socketPath} is longer than ${maxSocketPathBytes} bytes; use a shorter PADDOCK_DATA`);
    }
    await mkdir(dir, { recursive: true, mode: 0o755 });
    await rm(socketPath, { force: true });
    const endpoint = new AgentEndpoint(socketPath);
    await new Promise<void>((resolve, reject) => {
      endpoint.server.once('error', reject);
      endpoint.server.listen(socketPath, () => {
        endpoint.server.off('error', reject);
        resolve();
      });
    });
    return endpoint;
  }

  /** An idle connection to the agent, or null when none arrives within `timeoutMs` (or the endpoint closes). */
  acquire(timeoutMs: number): Promise<net.Socket | null> {
    const socket = this.idle.shift();
    if (socket) return Promise.resolve(socket);
    if (this.closed) return Promise.resolve(null);
    return new Promise((resolve) => {
      const take = (offered: net.Socket | null) => {
        clearTimeout(timer);
        resolve(offered);
      };
      const timer = setTimeout(() => {
        const index = this.waiting.indexOf(take);
        if (index >= 0) this.waiting.splice(index, 1);
        resolve(null);
      }, timeoutMs);
      this.waiting.push(take);
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const take of this.waiting.splice(0)) take(null);
    this.idle.length = 0;
    // server.close() waits for open connections, and one running a command stays open until it ends.
    for (const socket of this.open) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
    await rm(this.socketPath, { force: true });
  }

  /** Idle connections: at least one means the agent is up and an exec starts at once. */
  get idleConnections(): number {
    return this.idle.length;
  }

  /** Waits until the agent has connected; false when it has not within `timeoutMs`. */
  async waitConnected(timeoutMs: number): Promise<boolean> {
    if (this.idle.length) return true;
    const socket = await this.acquire(timeoutMs);
    if (!socket) return false;
    this.offerIdle(socket);
    return true;
  }

  /** Connections handed out to commands that have not ended yet. */
  get busyConnections(): number {
    return this.open.size - this.idle.length;
  }

  private offer(socket: net.Socket): void {
    if (this.idle.length >= maxIdleConnections) {
      socket.destroy();
      return;
    }
    this.open.add(socket);
    socket.once('close', () => this.open.delete(socket));
    if (this.closed) {
      socket.destroy();
      return;
    }
    socket.on('error', () => {});
    socket.once('close', () => {
      const index = this.idle.indexOf(socket);
      if (index >= 0) this.idle.splice(index, 1);
    });
    this.offerIdle(socket);
  }

  /** To the longest waiting caller, or back to the idle list. */
  private offerIdle(socket: net.Socket): void {
    if (socket.destroyed) return;
    const take = this.waiting.shift();
    if (take) {
      take(socket);
      return;
    }
    this.idle.push(socket);
  }
}
