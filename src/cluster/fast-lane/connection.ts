// One client connection on an api node's fast lane. Each request head is read from the socket: a plain
// request for a sandbox on a worker is written to a kept-alive connection to that worker as it is (head
// rewritten for the hop, body and answer passed through byte for byte); any other request is written
// into a socket in memory that Node's HTTP server serves as it serves every connection. One request at a
// time, so answers leave in order. A connection with anything unusual on it (an upgrade, a chunked body,
// Expect, a head the strict parser refuses) is handed to Node's server for good, which answers or refuses
// it as it always does.
import type net from 'node:net';
import { rawErrorResponse } from '../../core/server-refusals.js';
import { headEnd, MAX_HEAD_BYTES, parseRequestHead, type RequestHead } from '../../core/net/request-head.js';
import { unreachable } from '../answers.js';
import { NODE_HEADERS } from '../node-auth.js';
import { AnswerFraming } from './answer-framing.js';
import { MemorySocket } from './memory-socket.js';
import { outgoingHead } from './outgoing-head.js';
import type { Upstream, UpstreamPool } from './upstream-pool.js';

/** A head that has not all arrived after this goes to Node's server (its headers timeout applies there). */
const HEAD_WAIT_MS = 1000;
const SMALL_BODY_BYTES = 64 * 1024;
const NODE_HEADER_NAMES: ReadonlySet<string> = new Set(NODE_HEADERS);

/** Where the lane sends a request on: a worker, with the signed node headers for it. */
export interface LaneTarget {
  nodeId: string;
  hostname: string;
  port: number;
  signed: Record<string, string>;
}

export interface LaneDeps {
  /** The worker a request goes to as it is, or null to serve it here (at once when the sandbox's node is known). */
  route(head: RequestHead, clientAddress: string): LaneTarget | null | Promise<LaneTarget | null>;
  pool: UpstreamPool;
  /** Gives a socket in memory to Node's HTTP server as a new connection. */
  serveHere(socket: MemorySocket): void;
  /** Keeps a forwarded request among the links to its node (cut when the node is declared lost). */
  hold(nodeId: string, cut: () => void): () => void;
  closing(): boolean;
  forget(connection: LaneConnection): void;
}

/** Only plain keep-alive requests with a known length take the lane; the rest go to Node's server. */
function plain(head: RequestHead | null): head is RequestHead {
  if (!head || head.needsNode || head.body === 'chunked' || head.version !== 'HTTP/1.1' || !head.url.startsWith('/')) return false;
  for (let i = 0; i < head.fields.length; i += 2) {
    const lower = head.fields[i].toLowerCase();
    if (lower === 'expect' || NODE_HEADER_NAMES.has(lower)) return false;
    if (lower === 'connection' && head.fields[i + 1].toLowerCase() !== 'keep-alive') return false;
  }
  return true;
}

export class LaneConnection {
  private buffered: Buffer | null = null;
  /** A request is being served: its body is still being passed on, or its answer is not complete. */
  private busy = false;
  private bodyLeft = 0;
  private bodyTo: ((chunk: Buffer) => void) | null = null;
  private answered = false;
  private handedOver = false;
  private memory: MemorySocket | null = null;
  /** The answer Node's server is writing into the memory socket, framed to know when it is complete. */
  private localAnswer: AnswerFraming | null = null;
  private upstream: Upstream | null = null;
  private headTimer: NodeJS.Timeout | null = null;
  private clientEnded = false;
  /** When the connection went quiet between requests (0: it is not); install.ts ends it after the keep-alive time. */
  private idleSinceMs = 0;

  constructor(
    private readonly socket: net.Socket,
    private readonly deps: LaneDeps,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.received(chunk));
    socket.on('end', () => this.ended());
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.closed());
    socket.on('timeout', () => socket.destroy());
    this.next();
  }

  /** Ends the connection if it is between requests (the server is closing). */
  closeIfIdle(): void {
    if (!this.busy && !this.handedOver && !this.buffered) this.socket.destroy();
  }

  /** Ends the connection if it has been between requests since `sinceMs` or before. */
  closeIfIdleSince(sinceMs: number): void {
    if (this.idleSinceMs && this.idleSinceMs <= sinceMs && !this.busy && !this.handedOver && !this.buffered) this.socket.destroy();
  }

  private received(chunk: Buffer): void {
    if (this.handedOver) return this.toMemory(chunk);
    if (this.bodyLeft > 0) {
      const taken = Math.min(this.bodyLeft, chunk.length);
      this.bodyLeft -= taken;
      this.bodyTo!(chunk.subarray(0, taken));
      chunk = chunk.subarray(taken);
      if (this.bodyLeft === 0) this.requestSent();
      if (!chunk.length) return;
    }
    this.buffered = this.buffered ? Buffer.concat([this.buffered, chunk]) : chunk;
    if (!this.busy) this.next();
    // A client sending request after request without reading the answers waits for them.
    else if (this.buffered.length > MAX_HEAD_BYTES) this.socket.pause();
  }

  private next(): void {
    if (this.headTimer) clearTimeout(this.headTimer);
    this.headTimer = null;
    if (this.socket.destroyed) return;
    if (this.socket.isPaused()) this.socket.resume();
    if (!this.buffered) {
      if (this.clientEnded || this.deps.closing()) this.socket.end();
      else this.idleSinceMs = Date.now();
      return;
    }
    this.idleSinceMs = 0;
    const end = headEnd(this.buffered, 0);
    if (end === -1) {
      if (this.buffered.length > MAX_HEAD_BYTES) this.handOver();
      else this.headTimer = setTimeout(() => this.handOver(), HEAD_WAIT_MS);
      return;
    }
    const head = parseRequestHead(this.buffered, 0, end);
    if (!plain(head)) return this.handOver();
    const body = head.body as number;
    // A small body is passed on with its head, in one write (a worker reads them in one go).
    if (body <= SMALL_BODY_BYTES && this.buffered.length < end + body) {
      this.headTimer = setTimeout(() => this.handOver(), HEAD_WAIT_MS);
      return;
    }
    this.busy = true;
    this.answered = false;
    if (this.deps.closing()) return this.serveHere(head, end + body);
    const target = this.deps.route(head, this.socket.remoteAddress ?? '');
    if (!(target instanceof Promise)) return this.pass(head, end, body, target);
    target.then(
      (found) => this.pass(head, end, body, found),
      () => this.serveHere(head, end + body),
    );
  }

  private pass(head: RequestHead, end: number, body: number, target: LaneTarget | null): void {
    if (this.socket.destroyed) return;
    if (target) this.forward(head, end, body, target);
    else this.serveHere(head, end + body);
  }

  /** Takes the request's first `length` bytes from what is buffered; the rest of its body is passed on as it arrives. */
  private take(length: number, to: (chunk: Buffer) => void): Buffer {
    const buffered = this.buffered!;
    const first = buffered.length > length ? buffered.subarray(0, length) : buffered;
    this.buffered = buffered.length > length ? buffered.subarray(length) : null;
    this.bodyLeft = length - first.length;
    this.bodyTo = this.bodyLeft ? to : null;
    return first;
  }

  private requestSent(): void {
    this.bodyTo = null;
    if (this.answered) this.done();
  }

  private answerComplete(): void {
    this.answered = true;
    if (this.bodyLeft === 0) this.done();
  }

  private done(): void {
    this.busy = false;
    this.next();
  }

  private serveHere(head: RequestHead, length: number): void {
    this.localAnswer = new AnswerFraming(head.method, false);
    this.toMemory(this.take(length, (chunk) => this.toMemory(chunk)));
  }

  private forward(head: RequestHead, end: number, bodyLength: number, target: LaneTarget): void {
    const client = this.socket;
    const framing = new AnswerFraming(head.method, true);
    let sent = false;
    let untilClose = false;
    let release = () => {};
    const finish = (reusable: boolean) => {
      release();
      this.upstream = null;
      // A worker that answered before it had the whole body is not in step: that connection ends.
      if (reusable && this.bodyLeft === 0 && !client.destroyed) this.deps.pool.giveBack(upstream);
      else upstream.socket.destroy();
    };
    const answer = (chunk: Buffer) => {
      let framed;
      try {
        framed = framing.push(chunk);
      } catch {
        finish(false);
        client.destroy();
        return;
      }
      untilClose = framed.untilClose;
      if (framed.output.length) {
        sent = true;
        // A head and the body after it leave in one packet.
        if (!client.write(framed.output.length === 1 ? framed.output[0] : Buffer.concat(framed.output))) {
          upstream.socket.pause();
          client.once('drain', () => upstream.socket.resume());
        }
      }
      if (!framed.complete) return;
      finish(framed.reusable);
      if (this.bodyLeft === 0) return this.answerComplete();
      // Answered before the body was all sent (a refusal, the worker's request timeout): the rest of
      // the body would have to be read for nothing, so the connection ends here.
      this.bodyTo = () => {};
      client.end();
    };
    const gone = (error?: Error) => {
      if (this.upstream !== upstream) return;
      finish(false);
      // An answer without a length ends with its connection: the client's ends there too.
      if (untilClose && !error) client.end();
      else if (sent) client.destroy();
      else client.end(rawErrorResponse({ ...unreachable((error as NodeJS.ErrnoException | undefined)?.code ?? 'the connection closed'), target: head.url }));
    };
    const upstream = this.deps.pool.take(target.hostname, target.port, { data: answer, gone });
    this.upstream = upstream;
    const toUpstream = (chunk: Buffer) => {
      if (upstream.socket.write(chunk)) return;
      client.pause();
      upstream.socket.once('drain', () => client.resume());
    };
    const first = this.take(end + bodyLength, toUpstream);
    const outgoing = outgoingHead(head, client.remoteAddress ?? '', target.signed);
    const bytes = Buffer.allocUnsafe(outgoing.length + first.length - end);
    bytes.write(outgoing, 0, 'latin1');
    first.copy(bytes, outgoing.length, end);
    toUpstream(bytes);
    // After the request has left: nothing of this is needed before its answer comes back.
    release = this.deps.hold(target.nodeId, () => {
      upstream.socket.destroy();
      client.destroy();
    });
  }

  private toMemory(chunk: Buffer): void {
    const memory = this.memory ?? this.openMemory();
    memory.input(chunk);
    if (memory.full) this.socket.pause();
  }

  private openMemory(): MemorySocket {
    const client = this.socket;
    const memory = new MemorySocket(client, {
      output: (chunk, done) => {
        if (client.destroyed) return done();
        if (client.write(chunk)) done();
        else client.once('drain', done);
        const framing = this.localAnswer;
        if (!framing) return;
        try {
          if (!framing.push(chunk).complete) return;
        } catch {
          return void client.destroy();
        }
        this.localAnswer = null;
        this.answerComplete();
      },
      ended: () => client.end(),
      destroyed: () => client.destroy(),
      wantsMore: () => client.resume(),
    });
    this.memory = memory;
    this.deps.serveHere(memory);
    return memory;
  }

  /** Node's server serves the rest of this connection. */
  private handOver(): void {
    this.handedOver = true;
    if (this.headTimer) clearTimeout(this.headTimer);
    this.idleSinceMs = 0;
    const buffered = this.buffered;
    this.buffered = null;
    const memory = this.memory ?? this.openMemory();
    memory.timesOut = true;
    if (buffered) this.toMemory(buffered);
    if (this.clientEnded) memory.push(null);
  }

  private ended(): void {
    this.clientEnded = true;
    if (this.handedOver || this.localAnswer) this.memory?.push(null);
    else if (!this.busy && !this.buffered) this.socket.end();
  }

  private closed(): void {
    if (this.headTimer) clearTimeout(this.headTimer);
    this.upstream?.socket.destroy();
    this.memory?.destroy();
    this.deps.forget(this);
  }
}
