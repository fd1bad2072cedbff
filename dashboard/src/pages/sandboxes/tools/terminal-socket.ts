// Opens the sandbox's terminal WebSocket the way a browser must: a single-use ticket from an ordinary
// authenticated POST (session cookie + CSRF), then the socket on this origin with only ?ticket= in the URL.
import { api, query } from '../../../api/client';
import type { TerminalControl, TerminalSessionView, TerminalTicket } from './types';

/** Close codes of the terminal protocol (src/terminal/routes.ts), as a user reads them. */
const CLOSE_REASONS: Record<number, string> = {
  1000: 'The shell exited.',
  1001: 'The server is shutting down.',
  4000: 'The sandbox was destroyed.',
  4001: 'This terminal was opened in another window.',
  4002: 'The sandbox was paused.',
  4004: 'The session ended while connecting.',
  4008: 'The connection fell behind the output; reconnect to continue.',
};

export function closeReason(code: number): string {
  return CLOSE_REASONS[code] ?? 'The connection was lost.';
}

export interface TerminalHandlers {
  output(bytes: Uint8Array): void;
  control(message: TerminalControl): void;
  closed(code: number): void;
}

/** Whether a session remembered from before a reload is still alive (sessions outlive a dropped connection for a grace period). */
export async function sessionStillAlive(sandboxId: string, sessionId: string): Promise<boolean> {
  const sessions = await api.get<TerminalSessionView[]>(`/v1/sandboxes/${sandboxId}/terminal/sessions`);
  return sessions.some((session) => session.id === sessionId);
}

export async function openTerminalSocket(sandboxId: string, options: { session?: string | null; cols: number; rows: number }, handlers: TerminalHandlers): Promise<WebSocket> {
  const { ticket } = await api.post<TerminalTicket>(`/v1/sandboxes/${sandboxId}/terminal/tickets`);
  const scheme = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  const search = query({ ticket, session: options.session, cols: options.cols, rows: options.rows });
  const socket = new WebSocket(`${scheme}//${window.location.host}/v1/sandboxes/${sandboxId}/terminal${search}`);
  socket.binaryType = 'arraybuffer';
  socket.onmessage = (event: MessageEvent<ArrayBuffer | string>) => {
    if (typeof event.data === 'string') handlers.control(JSON.parse(event.data) as TerminalControl);
    else handlers.output(new Uint8Array(event.data));
  };
  socket.onclose = (event) => handlers.closed(event.code);
  return socket;
}

const encoder = new TextEncoder();

/** Keystrokes always go as binary frames, so a pasted JSON object is never taken for a control message. */
export function sendInput(socket: WebSocket, data: string, binary = false): void {
  if (socket.readyState !== WebSocket.OPEN) return;
  socket.send(binary ? Uint8Array.from(data, (char) => char.charCodeAt(0) & 0xff) : encoder.encode(data));
}

export function sendResize(socket: WebSocket, cols: number, rows: number): void {
  if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: 'resize', cols, rows }));
}
