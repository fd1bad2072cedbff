// The terminal WebSocket protocol: which client frames are keystrokes and which are control messages,
// and the control messages the server sends. Terminal output itself always travels as binary frames.

export const MAX_TERMINAL_COLS = 1000;
export const MAX_TERMINAL_ROWS = 1000;

export type ClientFrame = { kind: 'input'; data: Buffer } | { kind: 'resize'; cols: number; rows: number } | { kind: 'invalid'; message: string };

export type ServerControl = { type: 'session'; id: string; reattached: boolean; cols: number; rows: number } | { type: 'exit'; exit_code: number } | { type: 'error'; message: string };

/** WebSocket close codes and reasons the server uses (4000-4999 is the application range). */
export const CLOSE = {
  shellExited: { code: 1000, reason: 'shell exited' },
  serverClosing: { code: 1001, reason: 'server shutting down' },
  sandboxDestroyed: { code: 4000, reason: 'sandbox destroyed' },
  attachedElsewhere: { code: 4001, reason: 'session attached by another connection' },
  sandboxPaused: { code: 4002, reason: 'sandbox paused' },
  sessionGone: { code: 4004, reason: 'terminal session ended' },
  clientTooSlow: { code: 4008, reason: 'client too slow: re-attach to continue' },
} as const;

function isTerminalSize(value: unknown, max: number): value is number {
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= max;
}

/**
 * Binary frames are always keystrokes. A text frame is a control message when the whole frame is a JSON
 * object with a string `type`; any other text frame is keystrokes (UTF-8). A client that may send such a
 * JSON text as input (a paste) sends its input as binary frames.
 */
export function parseClientFrame(data: Buffer, isBinary: boolean): ClientFrame {
  if (isBinary || data[0] !== 0x7b /* { */) return { kind: 'input', data };
  let message: unknown;
  try {
    message = JSON.parse(data.toString('utf8'));
  } catch {
    return { kind: 'input', data };
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return { kind: 'input', data };
  const { type, cols, rows } = message as Record<string, unknown>;
  if (typeof type !== 'string') return { kind: 'input', data };
  if (type !== 'resize') return { kind: 'invalid', message: `unknown control message type "${type}"; the only one is "resize"` };
  if (!isTerminalSize(cols, MAX_TERMINAL_COLS) || !isTerminalSize(rows, MAX_TERMINAL_ROWS)) {
    return { kind: 'invalid', message: `resize needs integer cols (1-${MAX_TERMINAL_COLS}) and rows (1-${MAX_TERMINAL_ROWS})` };
  }
  return { kind: 'resize', cols, rows };
}

export function encodeControl(message: ServerControl): string {
  return JSON.stringify(message);
}
