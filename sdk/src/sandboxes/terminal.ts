// `sandbox.terminal`: an interactive login shell on a real TTY over a WebSocket. The SDK asks for a
// single-use ticket with the API key (a WebSocket cannot carry the Authorization header in browsers nor
// in Node's built-in client) and opens the socket with it.
//
// WebSocket: the global one (Node 22+, Deno, Bun, browsers); on Node 20, which has none, pass a
// WHATWG-compatible constructor, e.g. `import WebSocket from 'ws'` and `terminal.open({WebSocket, …})`.
// So the SDK keeps zero runtime dependencies.
import type { Http } from '../core/http.js';
import { PaddockError } from '../core/errors.js';
import { segment, type TerminalTicket } from './types.js';

/** The part of the WHATWG WebSocket the terminal uses (the global one and `ws` both have it). */
export interface WebSocketLike {
  binaryType: string;
  readyState: number;
  send(data: string | ArrayBufferLike | ArrayBufferView): void;
  close(code?: number, reason?: string): void;
  addEventListener(type: string, listener: (event: any) => void): void;
}
export type WebSocketConstructor = new (url: string) => WebSocketLike;

export interface TerminalOptions {
  cols?: number;
  rows?: number;
  /** Terminal output as it arrives (UTF-8 text, escape sequences included). */
  onData?: (data: string) => void;
  /** Re-attach a session (`term_…`) that is still alive instead of starting a new shell. */
  session?: string;
  /** A WebSocket constructor where there is no global one (Node 20: the `ws` package's default export). */
  WebSocket?: WebSocketConstructor;
}

export interface TerminalExit {
  /** The shell's exit code; null when the connection closed without the shell exiting. */
  code: number | null;
  /** The WebSocket close code (1000 shell exited, 4000 sandbox destroyed, 4002 paused, …). */
  closeCode: number;
}

const OPEN = 1;
const utf8 = new TextEncoder();

export class Terminal {
  /** The session id, to re-attach with `open({session})` after a dropped connection. */
  sessionId = '';
  cols: number;
  rows: number;
  readonly exited: Promise<TerminalExit>;
  private exitCode: number | null = null;

  private constructor(
    private readonly socket: WebSocketLike,
    options: TerminalOptions,
    ready: { resolve: () => void; reject: (error: Error) => void },
  ) {
    this.cols = options.cols ?? 80;
    this.rows = options.rows ?? 24;
    const decoder = new TextDecoder();
    socket.binaryType = 'arraybuffer';
    socket.addEventListener('message', (event: { data: unknown }) => {
      if (typeof event.data === 'string') return this.control(event.data, ready.resolve);
      options.onData?.(decoder.decode(event.data as ArrayBuffer, { stream: true }));
    });
    socket.addEventListener('error', () => ready.reject(new PaddockError({ status: 0, code: 'terminal_error', message: 'the terminal WebSocket failed' })));
    this.exited = new Promise((resolve) =>
      socket.addEventListener('close', (event: { code: number; reason?: string }) => {
        ready.reject(new PaddockError({ status: 0, code: 'terminal_closed', message: `the terminal closed before it opened (${event.code} ${event.reason ?? ''})`.trim() }));
        resolve({ code: this.exitCode, closeCode: event.code });
      }),
    );
  }

  /** Opens the socket and resolves once the server has announced the session. */
  static async open(http: Http, sandboxId: string, options: TerminalOptions = {}): Promise<Terminal> {
    const WebSocketImpl = options.WebSocket ?? (globalThis as { WebSocket?: WebSocketConstructor }).WebSocket;
    if (!WebSocketImpl) {
      throw new PaddockError({
        status: 0,
        code: 'websocket_missing',
        message: "this runtime has no global WebSocket (Node < 22): pass one, e.g. terminal.open({ WebSocket: (await import('ws')).default })",
      });
    }
    const ticket = await http.request<TerminalTicket>('POST', `/v1/sandboxes/${segment(sandboxId)}/terminal/tickets`);
    const url = new URL(http.url(`/v1/sandboxes/${segment(sandboxId)}/terminal`, { ticket: ticket.ticket, cols: options.cols, rows: options.rows, session: options.session }));
    url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
    let ready!: { resolve: () => void; reject: (error: Error) => void };
    const opened = new Promise<void>((resolve, reject) => (ready = { resolve, reject }));
    const terminal = new Terminal(new WebSocketImpl(url.toString()), options, ready);
    await opened;
    return terminal;
  }

  private control(text: string, onSession: () => void): void {
    const message = JSON.parse(text) as { type: string; id?: string; cols?: number; rows?: number; exit_code?: number };
    if (message.type === 'session') {
      this.sessionId = message.id ?? '';
      this.cols = message.cols ?? this.cols;
      this.rows = message.rows ?? this.rows;
      onSession();
    } else if (message.type === 'exit') {
      this.exitCode = message.exit_code ?? null;
    }
  }

  /** Keystrokes; sent as binary frames so that input looking like a control message stays input. */
  write(data: string | Uint8Array): void {
    this.socket.send(typeof data === 'string' ? utf8.encode(data) : data);
  }

  /** The shell sees the new size a moment later (the runtime learns it from SIGWINCH), not before keystrokes written at once. */
  resize(cols: number, rows: number): void {
    this.socket.send(JSON.stringify({ type: 'resize', cols, rows }));
    this.cols = cols;
    this.rows = rows;
  }

  /** Closes the connection; the session stays for the server's grace period (re-attach with `session`). */
  close(): void {
    if (this.socket.readyState <= OPEN) this.socket.close(1000);
  }
}

export class Terminals {
  constructor(
    private readonly http: Http,
    private readonly sandboxId: string,
  ) {}

  open(options: TerminalOptions = {}): Promise<Terminal> {
    return Terminal.open(this.http, this.sandboxId, options);
  }
}
