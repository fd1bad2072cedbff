// Background processes inside a sandbox: each operation is one agent mode run through the sandbox
// service's exec (never recorded as the user's exec); the processes and their output live in the sandbox.
import { Conflict, HttpError, Invalid, NotFound } from '../core/errors.js';
import { isId, newId } from '../core/ids.js';
import { wholeCharactersLength } from '../core/utf8-chunks.js';
import type { ExecResult } from '../runtime/runtime.js';
import { SandboxUnavailable, type SandboxService } from '../sandboxes/service.js';
import {
  AgentExit,
  listArgv,
  parseProcessList,
  RING_BYTES,
  signalArgv,
  signalNumber,
  startArgv,
  stdinArgv,
  tailArgv,
  TailFormatError,
  TailParser,
  type ProcessRecord,
  type TailEvent,
} from './agent-commands.js';

/** A follow ends when the client goes; the cap only keeps a forgotten one from running forever. */
const FOLLOW_TIMEOUT_MS = 7 * 24 * 3600 * 1000;
const COMMAND_TIMEOUT_MS = 30_000;
const STDIN_TIMEOUT_MS = 120_000;

export interface StartInput {
  command: string;
  env?: Record<string, string>;
  cwd?: string;
  tag?: string;
}

export type Process = Omit<ProcessRecord, 'stdinClosed'> & { sandbox_id: string };

export interface OutputChunk {
  stream: 'stdout' | 'stderr';
  offset: number;
  data: string;
}

export interface OutputPage {
  chunks: OutputChunk[];
  next_offset: number;
  truncated: boolean;
  status: 'running' | 'exited';
  exit_code: number | null;
}

const processNotFound = (pid: string) => new NotFound(`process ${pid}`, 'process_not_found');

export class ProcessService {
  constructor(private readonly sandboxes: SandboxService) {}

  private async run(
    accountId: string,
    sandboxId: string,
    argv: string[],
    options: { env?: Record<string, string>; timeoutMs?: number; stdin?: Buffer; maxOutputBytes?: number; signal?: AbortSignal; onStdout?(chunk: Buffer): void } = {},
  ): Promise<ExecResult> {
    try {
      return await this.sandboxes.run(accountId, sandboxId, {
        command: argv.join(' '),
        argv,
        env: options.env,
        cwd: '/',
        timeoutMs: options.timeoutMs ?? COMMAND_TIMEOUT_MS,
        maxOutputBytes: options.maxOutputBytes ?? 4 * RING_BYTES,
        stdin: options.stdin,
        signal: options.signal,
        onStdout: options.onStdout,
      });
    } catch (error) {
      if (error instanceof SandboxUnavailable) throw new HttpError(409, `${error.message}; background processes need a running sandbox`, 'sandbox_not_running');
      throw error;
    }
  }

  private fail(result: ExecResult, what: string): never {
    throw new Error(`${what} failed in the sandbox (exit ${result.exitCode}): ${result.stderr.toString('utf8').slice(0, 300)}`);
  }

  async start(accountId: string, sandboxId: string, input: StartInput): Promise<Process> {
    const id = newId('proc');
    const cwd = input.cwd ?? '/workspace';
    const result = await this.run(accountId, sandboxId, startArgv(id, cwd, input.tag ?? null, input.command), { env: input.env });
    if (result.exitCode === AgentExit.limit) throw new Conflict('the sandbox already runs 64 background processes; wait for one to exit or signal one', 'process_limit');
    if (result.exitCode === AgentExit.badCwd) throw new Invalid('body.cwd', `${cwd} is not a directory in the sandbox`);
    if (result.exitCode !== AgentExit.ok) this.fail(result, 'starting the process');
    const [osPid, startedMs] = result.stdout.toString('utf8').trim().split(' ').map(Number);
    return {
      id,
      sandbox_id: sandboxId,
      command: input.command,
      tag: input.tag ?? null,
      cwd,
      status: 'running',
      exit_code: null,
      signal: null,
      os_pid: osPid,
      started_at: new Date(startedMs).toISOString(),
      ended_at: null,
      output_bytes: 0,
    };
  }

  async list(accountId: string, sandboxId: string, filter: { status?: 'running' | 'exited'; tag?: string }): Promise<Process[]> {
    const result = await this.run(accountId, sandboxId, listArgv());
    if (result.exitCode !== AgentExit.ok) this.fail(result, 'listing processes');
    return parseProcessList(result.stdout)
      .filter((record) => (!filter.status || record.status === filter.status) && (!filter.tag || record.tag === filter.tag))
      .sort((a, b) => (a.id < b.id ? 1 : -1))
      .map((record) => view(record, sandboxId));
  }

  private async record(accountId: string, sandboxId: string, pid: string): Promise<ProcessRecord> {
    if (!isId('proc', pid)) throw processNotFound(pid);
    const result = await this.run(accountId, sandboxId, listArgv(pid));
    if (result.exitCode === AgentExit.notFound) throw processNotFound(pid);
    if (result.exitCode !== AgentExit.ok) this.fail(result, 'reading the process');
    const record = parseProcessList(result.stdout).find((candidate) => candidate.id === pid);
    if (!record) throw processNotFound(pid);
    return record;
  }

  async get(accountId: string, sandboxId: string, pid: string): Promise<Process> {
    return view(await this.record(accountId, sandboxId, pid), sandboxId);
  }

  /** What the ring holds from `offset`; with `waitMs`, waits that long for output (or the exit) when there is none yet. */
  async output(accountId: string, sandboxId: string, pid: string, offset: number, waitMs = 0): Promise<OutputPage> {
    await this.record(accountId, sandboxId, pid);
    let events = await this.tailOnce(accountId, sandboxId, pid, offset);
    const end = events.at(-1);
    if (waitMs > 0 && end?.type === 'running' && !events.some((event) => event.type === 'stdout' || event.type === 'stderr')) {
      const stop = new AbortController();
      const timer = setTimeout(() => stop.abort(), waitMs);
      const seen: TailEvent[] = [];
      try {
        await this.follow(accountId, sandboxId, pid, offset, stop.signal, (event) => {
          seen.push(event);
          if (event.type !== 'truncated') stop.abort();
        });
      } finally {
        clearTimeout(timer);
      }
      if (seen.length) events = await this.tailOnce(accountId, sandboxId, pid, offset);
    }
    return pageOf(events, offset);
  }

  private async tailOnce(accountId: string, sandboxId: string, pid: string, offset: number): Promise<TailEvent[]> {
    const result = await this.run(accountId, sandboxId, tailArgv(pid, offset, false));
    if (result.exitCode === AgentExit.notFound) throw processNotFound(pid);
    const events = safeParse(result.stdout);
    if (!events.length) this.fail(result, 'reading the output');
    return events;
  }

  /**
   * Streams the output from `offset` until the process exited and everything was sent (`exit` last), or
   * `signal` aborts. Check the process exists first (`get`): this one cannot answer 404 once streaming.
   */
  async follow(accountId: string, sandboxId: string, pid: string, offset: number, signal: AbortSignal, onEvent: (event: TailEvent) => void): Promise<void> {
    const parser = new TailParser();
    const stop = new AbortController();
    const abort = () => stop.abort();
    signal.addEventListener('abort', abort, { once: true });
    if (signal.aborted) return;
    try {
      await this.run(accountId, sandboxId, tailArgv(pid, offset, true), {
        timeoutMs: FOLLOW_TIMEOUT_MS,
        maxOutputBytes: 64 * 1024,
        signal: stop.signal,
        onStdout: (chunk) => {
          if (stop.signal.aborted) return;
          try {
            for (const event of parser.push(chunk)) onEvent(event);
          } catch (error) {
            if (!(error instanceof TailFormatError)) throw error;
            stop.abort();
          }
        },
      });
    } finally {
      signal.removeEventListener('abort', abort);
    }
  }

  async sendStdin(accountId: string, sandboxId: string, pid: string, data: Buffer, eof: boolean): Promise<void> {
    if (!isId('proc', pid)) throw processNotFound(pid);
    const result = await this.run(accountId, sandboxId, stdinArgv(pid, eof), { stdin: data, timeoutMs: STDIN_TIMEOUT_MS });
    if (result.exitCode === AgentExit.notFound) throw processNotFound(pid);
    if (result.exitCode === AgentExit.notRunning) throw new Conflict(`process ${pid} has exited`, 'process_not_running');
    if (result.exitCode === AgentExit.stdinClosed) throw new Conflict(`process ${pid}'s stdin was closed (eof was sent)`, 'process_stdin_closed');
    if (result.timedOut) throw new Conflict(`process ${pid} did not read its stdin within ${STDIN_TIMEOUT_MS / 1000} s`, 'conflict');
    if (result.exitCode !== AgentExit.ok) this.fail(result, 'sending stdin');
  }

  async signal(accountId: string, sandboxId: string, pid: string, name: string): Promise<Process> {
    if (!isId('proc', pid)) throw processNotFound(pid);
    const result = await this.run(accountId, sandboxId, signalArgv(pid, signalNumber(name)));
    if (result.exitCode === AgentExit.notFound) throw processNotFound(pid);
    if (result.exitCode === AgentExit.notRunning) throw new Conflict(`process ${pid} has exited`, 'process_not_running');
    if (result.exitCode !== AgentExit.ok) this.fail(result, 'signalling the process');
    return this.get(accountId, sandboxId, pid);
  }
}

function view({ stdinClosed: _, ...record }: ProcessRecord, sandboxId: string): Process {
  return { ...record, sandbox_id: sandboxId };
}

function safeParse(output: Buffer): TailEvent[] {
  try {
    return new TailParser().push(output);
  } catch (error) {
    if (error instanceof TailFormatError) return [];
    throw error;
  }
}

function pageOf(events: TailEvent[], offset: number): OutputPage {
  // Adjacent pieces of one stream are joined as bytes before decoding: a character cut between them stays whole.
  const pieces: { stream: 'stdout' | 'stderr'; offset: number; bytes: Buffer[] }[] = [];
  let next = offset;
  let lastEnd = -1;
  let truncated = false;
  let exit: { exit_code: number | null } | null = null;
  for (const event of events) {
    if (event.type === 'truncated') {
      truncated = true;
      next = event.offset;
    } else if (event.type === 'stdout' || event.type === 'stderr') {
      const last = pieces.at(-1);
      if (last && last.stream === event.type && lastEnd === event.offset) last.bytes.push(event.data);
      else pieces.push({ stream: event.type, offset: event.offset, bytes: [event.data] });
      next = lastEnd = event.offset + event.data.length;
    } else {
      next = Math.max(next, event.offset);
      if (event.type === 'exit') exit = event;
    }
  }
  // A running process may still complete a character the page ends inside: the page stops before it,
  // and next_offset points at its first byte so the next page reads it whole.
  const last = pieces.at(-1);
  if (!exit && last && lastEnd === next) {
    const bytes = Buffer.concat(last.bytes);
    const whole = wholeCharactersLength(bytes);
    if (whole < bytes.length) {
      next = last.offset + whole;
      if (whole) last.bytes = [bytes.subarray(0, whole)];
      else pieces.pop();
    }
  }
  const chunks: OutputChunk[] = pieces.map(({ stream, offset: at, bytes }) => ({ stream, offset: at, data: Buffer.concat(bytes).toString('utf8') }));
  return { chunks, next_offset: next, truncated, status: exit ? 'exited' : 'running', exit_code: exit?.exit_code ?? null };
}
