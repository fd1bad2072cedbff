// The API shapes the tool pages use, from src/terminal/routes.ts and src/sandboxes/{schemas,routes,files-routes}.ts.

/** POST /v1/sandboxes/{id}/terminal/tickets */
export interface TerminalTicket {
  ticket: string;
  expires_at: string;
  url: string;
}

/** GET /v1/sandboxes/{id}/terminal/sessions */
export interface TerminalSessionView {
  id: string;
  created_at: string;
  cols: number;
  rows: number;
  attached: boolean;
  last_activity_at: string;
}

/** Text frames the terminal WebSocket sends (binary frames are output). */
export type TerminalControl = { type: 'session'; id: string; reattached: boolean; cols: number; rows: number } | { type: 'exit'; exit_code: number } | { type: 'error'; message: string };

/** POST /v1/sandboxes/{id}/exec/stream body. */
export interface ExecRequest {
  command: string;
  timeout?: number;
  env?: Record<string, string>;
  cwd?: string;
}

/** One NDJSON line of POST /v1/sandboxes/{id}/exec/stream. */
export type ExecStreamLine =
  { type: 'stdout'; data: string } | { type: 'stderr'; data: string } | { type: 'exit'; exit_code: number; error?: string; timed_out?: boolean; truncated?: boolean; duration_ms?: number };

/** GET /v1/sandboxes/{id}/files?path= */
export interface FileEntry {
  name: string;
  path: string;
  type: 'file' | 'directory' | 'symlink' | 'other';
  size: number;
  mode: string;
  modified_at: string;
}
