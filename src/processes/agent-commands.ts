// The agent's process-* modes as argv, and parsers for what they print. Everything they print comes from
// files inside the sandbox, which anything running there can rewrite: parsers bound every size and skip
// what does not fit, so a tampered file only ever garbles that sandbox's own answers.
import { constants } from 'node:os';
import { sandboxAgentPath } from '../runtime/agent/binary.js';
import { isId } from '../core/ids.js';

/** On the sandbox's own disk, so processes and their output outlive the server and follow pause/resume. */
export const PROCESS_ROOT = '/var/lib/paddock/processes';
export const RING_BYTES = 1024 * 1024;

/** The agent's exit codes (agent/process-files.h). */
export const AgentExit = { ok: 0, notFound: 2, notRunning: 3, stdinClosed: 4, limit: 5, badCwd: 6, exists: 7 } as const;

const directory = (id: string) => `${PROCESS_ROOT}/${id}`;

export const startArgv = (id: string, cwd: string, tag: string | null, command: string) => [sandboxAgentPath, 'process-start', PROCESS_ROOT, id, cwd, tag ?? '', command];
export const listArgv = (id?: string) => [sandboxAgentPath, 'process-list', PROCESS_ROOT, ...(id ? [id] : [])];
export const tailArgv = (id: string, offset: number, follow: boolean) => [sandboxAgentPath, 'process-tail', directory(id), String(offset), follow ? 'follow' : 'once'];
export const stdinArgv = (id: string, eof: boolean) => [sandboxAgentPath, 'process-stdin', directory(id), eof ? 'eof' : 'more'];
export const signalArgv = (id: string, signalNumber: number) => [sandboxAgentPath, 'process-signal', directory(id), String(signalNumber)];

export interface ProcessRecord {
  id: string;
  command: string;
  tag: string | null;
  cwd: string;
  status: 'running' | 'exited';
  exit_code: number | null;
  signal: string | null;
  os_pid: number;
  started_at: string;
  ended_at: string | null;
  output_bytes: number;
  stdinClosed: boolean;
}

const signalNames = new Map(Object.entries(constants.signals).map(([name, number]) => [number as number, name]));

export function signalNumber(name: string): number {
  return constants.signals[name as keyof typeof constants.signals];
}

const FIELD_BYTES = 70 * 1024;
const MAX_MS = 8.64e15;

function isoOrNull(ms: number): string | null {
  return Number.isSafeInteger(ms) && ms > 0 && ms < MAX_MS ? new Date(ms).toISOString() : null;
}

function count(text: string | undefined): number {
  const value = Number(text);
  return Number.isSafeInteger(value) && value >= 0 ? value : 0;
}

function recordOf(fields: Map<string, string>): ProcessRecord | null {
  const id = fields.get('id');
  if (!id || !isId('proc', id)) return null;
  const started = isoOrNull(Number(fields.get('started_at')));
  const status = fields.get('status');
  const base = {
    id,
    command: fields.get('command') ?? '',
    tag: fields.get('tag') || null,
    cwd: fields.get('cwd') ?? '',
    os_pid: count(fields.get('os_pid')),
    started_at: started ?? new Date(0).toISOString(),
    output_bytes: count(fields.get('output_bytes')),
    stdinClosed: fields.has('stdin_closed'),
  };
  if (status === undefined) return { ...base, status: 'running', exit_code: null, signal: null, ended_at: null };
  const [code, signal, ended] = status.split(' ').map(Number);
  const known = Number.isInteger(code) && code >= 0 && code < 256;
  return {
    ...base,
    status: 'exited',
    exit_code: known ? code : null,
    signal: known && signal > 0 ? (signalNames.get(signal) ?? null) : null,
    ended_at: isoOrNull(ended),
  };
}

/** process-list's output: entries of `key NUL value NUL` pairs, each ended by an empty key. */
export function parseProcessList(output: Buffer): ProcessRecord[] {
  const records: ProcessRecord[] = [];
  let fields = new Map<string, string>();
  let key: string | null = null;
  let start = 0;
  for (let i = 0; i <= output.length; i++) {
    if (i < output.length && output[i] !== 0) continue;
    const text = output.subarray(start, Math.min(i, start + FIELD_BYTES)).toString('utf8');
    start = i + 1;
    if (key === null) {
      if (text === '') {
        const record = recordOf(fields);
        if (record) records.push(record);
        fields = new Map();
      } else key = text;
    } else {
      if (!fields.has(key)) fields.set(key, text);
      key = null;
    }
  }
  return records;
}

export type TailEvent =
  | { type: 'stdout' | 'stderr'; offset: number; data: Buffer }
  | { type: 'truncated'; offset: number }
  | { type: 'running'; offset: number }
  | { type: 'exit'; offset: number; exit_code: number | null; signal: string | null };

const TAIL_HEADER = 13;
/** A record's data is at most one pipe read (agent/ring.h RECORD_MAX_DATA); more means tampering. */
const TAIL_MAX_DATA = 64 * 1024;

export class TailFormatError extends Error {}

/** Parses process-tail's records from chunks as they arrive (a record may span chunks). */
export class TailParser {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): TailEvent[] {
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const events: TailEvent[] = [];
    let at = 0;
    while (this.pending.length - at >= TAIL_HEADER) {
      const type = String.fromCharCode(this.pending[at]);
      const offset = Number(this.pending.readBigUInt64BE(at + 1));
      const length = this.pending.readUInt32BE(at + 9);
      if (length > TAIL_MAX_DATA || !Number.isSafeInteger(offset)) throw new TailFormatError('a tail record is out of bounds');
      if (this.pending.length - at < TAIL_HEADER + length) break;
      const data = this.pending.subarray(at + TAIL_HEADER, at + TAIL_HEADER + length);
      at += TAIL_HEADER + length;
      if (type === 'O' || type === 'E') events.push({ type: type === 'O' ? 'stdout' : 'stderr', offset, data: Buffer.from(data) });
      else if (type === 'T') events.push({ type: 'truncated', offset });
      else if (type === 'R') events.push({ type: 'running', offset });
      else if (type === 'X') events.push({ type: 'exit', offset, ...exitOf(data.toString('utf8')) });
      else throw new TailFormatError(`unknown tail record ${JSON.stringify(type)}`);
    }
    this.pending = this.pending.subarray(at);
    return events;
  }
}

function exitOf(status: string): { exit_code: number | null; signal: string | null } {
  const [code, signal] = status.split(' ').map(Number);
  if (!Number.isInteger(code) || code < 0 || code > 255) return { exit_code: null, signal: null };
  return { exit_code: code, signal: signal > 0 ? (signalNames.get(signal) ?? null) : null };
}
