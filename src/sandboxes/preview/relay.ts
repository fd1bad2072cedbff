// One admitted preview connection relayed to the sandbox over one TCP connection of its own. Answers
// are copied back byte for byte; requests are only framed (heads found, bodies measured), so each one
// is still checked and counted by the gate and gets X-Forwarded-* and credential stripping, without
// Node's HTTP machinery per request. A request the gate refuses is not sent: once the sandbox has
// answered everything sent before it (answers are followed, not parsed, by AnswerCounter), the
// connection with the refused request's bytes goes back to the front door, which answers it.
import net from 'node:net';
import { AnswerCounter } from './answer-counter.js';
import { forwardedHead, headEnd, MAX_HEAD_BYTES, parseRequestHead, type RequestHead } from './request-head.js';
import { MalformedBody, MessageBody } from './message-body.js';

/** How long the sandbox gets to finish earlier answers after a refused request before both sides are cut off. */
const DRAIN_GRACE_MS = 30_000;
/** A relayed connection with no byte in either direction for this long is closed. */
const IDLE_TIMEOUT_MS = 10 * 60_000;
/** Request bytes held while a request waits for the gate or the sandbox connection, before reading pauses. */
const MAX_PENDING_BYTES = 1024 * 1024;

export interface RelayOptions {
  client: net.Socket;
  ip: string;
  port: number;
  scheme: string;
  portIsProtected: boolean;
  /** Whether a later request on this connection may go to the sandbox (the first one was admitted already). */
  gate(head: RequestHead): Promise<boolean>;
  onActivity(): void;
  /** Nothing accepted the connection to the sandbox. */
  onUnreachable(): void;
  /** The relay ended before `leftover` (a refused request and what followed): answer it afresh. */
  handBack(leftover: Buffer): void;
}

export class PreviewRelay {
  private readonly upstream: net.Socket;
  private readonly answers = new AnswerCounter();
  private grace: NodeJS.Timeout | null = null;
  private handedBack = false;
  private readonly clientAddress: string;
  /** Client bytes not yet sent: a partial head, or everything behind a request waiting for the gate. */
  private pending: Buffer | null;
  private body: MessageBody | null = null;
  private waiting = true;
  private connected = false;
  private firstAdmitted = true;
  private stopping = false;
  /** Reading paused because too many bytes wait behind a request the gate has not answered. */
  private pausedWhileWaiting = false;

  constructor(
    private readonly options: RelayOptions,
    initial: Buffer,
  ) {
    const { client } = options;
    this.pending = initial;
    this.clientAddress = client.remoteAddress ?? '';
    this.upstream = net.connect({ host: options.ip, port: options.port, noDelay: true });
    this.upstream.once('connect', () => {
      this.connected = true;
      this.waiting = false;
      this.pump();
    });
    this.upstream.on('data', this.onUpstreamData);
    this.upstream.on('end', () => {
      if (!this.stopping) client.end();
    });
    this.upstream.on('error', () => {
      if (!this.connected && !this.stopping) {
        this.stopping = true;
        options.onUnreachable();
      }
    });
    this.upstream.on('close', () => this.upstreamClosed());
    client.on('data', this.onClientData);
    client.on('end', this.onClientEnd);
    client.on('error', this.onClientError);
    client.on('close', this.onClientClose);
    client.on('timeout', this.onIdle);
    client.setTimeout(IDLE_TIMEOUT_MS);
    client.resume();
  }

  destroy(): void {
    this.options.client.destroy();
    this.upstream.destroy();
  }

  private readonly onIdle = (): void => this.destroy();
  private readonly onClientError = (): void => {
    this.options.client.destroy();
  };

  private readonly onUpstreamData = (chunk: Buffer): void => {
    this.options.onActivity();
    this.answers.received(chunk);
    if (!this.options.client.write(chunk)) {
      this.upstream.pause();
      this.options.client.once('drain', () => this.upstream.resume());
    }
    if (this.stopping && this.answers.settled) this.handBack();
  };

  private readonly onClientData = (chunk: Buffer): void => {
    this.options.onActivity();
    this.pending = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    if (this.waiting) {
      if (this.pending.length > MAX_PENDING_BYTES && !this.pausedWhileWaiting) {
        this.pausedWhileWaiting = true;
        this.options.client.pause();
      }
      return;
    }
    this.pump();
  };

  private readonly onClientEnd = (): void => {
    if (!this.stopping && !this.waiting) this.upstream.end();
  };

  private readonly onClientClose = (): void => {
    this.upstream.destroy();
  };

  /** Sends what `pending` holds up to the next request the gate must see, or up to a partial head. */
  private pump(): void {
    const buffer = this.pending;
    if (!buffer || this.stopping) return;
    this.pending = null;
    let offset = 0;
    this.upstream.cork();
    try {
      while (offset < buffer.length) {
        if (this.body) {
          const taken = this.body.take(buffer, offset);
          this.send(buffer.subarray(offset, offset + taken));
          offset += taken;
          if (this.body.done) this.body = null;
          continue;
        }
        const end = headEnd(buffer, offset);
        if (end === -1) {
          if (buffer.length - offset > MAX_HEAD_BYTES) return this.stop(buffer.subarray(offset));
          this.pending = buffer.subarray(offset);
          break;
        }
        const head = parseRequestHead(buffer, offset, end);
        if (!head || head.needsNode) return this.stop(buffer.subarray(offset));
        if (this.firstAdmitted) {
          this.firstAdmitted = false;
        } else {
          this.holdForGate(head, buffer.subarray(offset), end - offset);
          return;
        }
        this.forward(head, buffer, offset, end);
        offset = end;
      }
    } catch (err) {
      if (!(err instanceof MalformedBody)) throw err;
      // The sandbox's server would refuse the rest too; there is no request boundary left to answer at.
      this.destroy();
    } finally {
      this.upstream.uncork();
    }
    if (this.pausedWhileWaiting && !this.waiting && !this.stopping) {
      this.pausedWhileWaiting = false;
      this.options.client.resume();
    }
    if (this.options.client.readableEnded && !this.waiting && !this.stopping) this.upstream.end();
  }

  /** Holds `buffer` (starting with `head`) until the gate answers. */
  private holdForGate(head: RequestHead, buffer: Buffer, end: number): void {
    this.waiting = true;
    this.pending = this.pending ? Buffer.concat([buffer, this.pending]) : buffer;
    this.options.gate(head).then(
      (allowed) => {
        if (this.stopping || this.options.client.destroyed) return;
        const held = this.pending!;
        if (!allowed) return this.stop(held);
        this.upstream.cork();
        this.forward(head, held, 0, end);
        this.upstream.uncork();
        this.pending = end < held.length ? held.subarray(end) : null;
        this.waiting = false;
        this.pump();
      },
      () => this.destroy(),
    );
  }

  private forward(head: RequestHead, buffer: Buffer, start: number, end: number): void {
    const { copy, append } = forwardedHead(head, buffer, start, end, { clientAddress: this.clientAddress, scheme: this.options.scheme, portIsProtected: this.options.portIsProtected });
    // One string, one write: a head is small, and a single write costs less than a gathered one.
    this.upstream.write(copy ? copy.toString('latin1') + append : append, 'latin1');
    this.answers.sent(head.method);
    this.body = head.body === 0 ? null : new MessageBody(head.body);
  }

  private send(bytes: Buffer): void {
    if (!this.upstream.write(bytes)) {
      this.options.client.pause();
      this.upstream.once('drain', () => {
        if (!this.stopping) this.options.client.resume();
      });
    }
  }

  /** Stops before `leftover`: the sandbox finishes what it was sent, then the front door answers the rest. */
  private stop(leftover: Buffer): void {
    this.stopping = true;
    this.pending = leftover;
    const { client } = this.options;
    client.pause();
    client.removeListener('data', this.onClientData);
    client.removeListener('end', this.onClientEnd);
    client.removeListener('timeout', this.onIdle);
    client.setTimeout(0);
    if (this.answers.settled) return this.handBack();
    this.grace = setTimeout(() => this.destroy(), DRAIN_GRACE_MS);
  }

  private handBack(): void {
    if (this.handedBack) return;
    this.handedBack = true;
    if (this.grace) clearTimeout(this.grace);
    const { client } = this.options;
    client.removeListener('close', this.onClientClose);
    client.removeListener('error', this.onClientError);
    this.upstream.removeAllListeners('close');
    this.upstream.removeAllListeners('end');
    this.upstream.on('error', () => undefined);
    this.upstream.destroy();
    if (!client.destroyed) this.options.handBack(this.pending ?? Buffer.alloc(0));
  }

  /** The sandbox closed the connection: after its last answer, the client's connection ends too. */
  private upstreamClosed(): void {
    if (this.grace) clearTimeout(this.grace);
    if (this.connected || !this.stopping) this.options.client.destroySoon();
  }
}
