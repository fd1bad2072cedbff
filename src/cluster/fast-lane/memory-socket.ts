// The client's connection as Node's HTTP server sees it when the fast lane keeps the real socket: a
// Duplex in memory (Node's server takes any Duplex as a connection). Requests the lane serves here are
// written into it; what the server answers comes out through the peer's `output`, in order and with the
// real socket's back-pressure; the server's end and destroy reach the real socket.
import type net from 'node:net';
import { Duplex } from 'node:stream';

export interface MemorySocketPeer {
  /** An answer's bytes; `done` when they may be followed by more (the real socket drained). */
  output(chunk: Buffer, done: () => void): void;
  /** The server ended its side (after `Connection: close`, or a closed keep-alive connection). */
  ended(): void;
  destroyed(): void;
  /** The server reads again after it paused: the real socket may resume. */
  wantsMore(): void;
}

export class MemorySocket extends Duplex {
  readonly remoteAddress: string | undefined;
  readonly remotePort: number | undefined;
  readonly remoteFamily: string | undefined;
  readonly localAddress: string | undefined;
  readonly localPort: number | undefined;
  /** The server stopped reading (its parser is paused): the real socket should wait. */
  full = false;
  /** The connection is Node's server's for good: its keep-alive time is the real socket's. */
  timesOut = false;

  constructor(
    private readonly real: net.Socket,
    private readonly peer: MemorySocketPeer,
  ) {
    super({ allowHalfOpen: true });
    this.remoteAddress = real.remoteAddress;
    this.remotePort = real.remotePort;
    this.remoteFamily = real.remoteFamily;
    this.localAddress = real.localAddress;
    this.localPort = real.localPort;
  }

  /** Bytes the client sent, for the server. */
  input(chunk: Buffer): void {
    if (!this.push(chunk)) this.full = true;
  }

  override _read(): void {
    if (!this.full) return;
    this.full = false;
    this.peer.wantsMore();
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.peer.output(chunk, () => callback());
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.peer.ended();
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.peer.destroyed();
    callback(error);
  }

  /**
   * Node's server times its keep-alive on the real socket (whose timeout ends the connection) once the
   * connection is its own; before, the lane times the connection (it may be passing a stream on meanwhile).
   */
  setTimeout(ms: number, callback?: () => void): this {
    if (!this.timesOut) return this;
    this.real.setTimeout(ms);
    if (callback) this.real.once('timeout', callback);
    return this;
  }
  // Socket options are the real socket's.
  setNoDelay(): this {
    return this;
  }
  setKeepAlive(): this {
    return this;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  address(): ReturnType<net.Socket['address']> {
    return this.real.address();
  }
}
