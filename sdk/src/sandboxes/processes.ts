// Background processes of a sandbox (contract section 1): start one, list them, and a handle to read its
// output (buffered, or followed live from any offset), wait for it, write its stdin and signal it.
import type { BodyOf, ResponseOf } from '../core/types.js';
import type { Http } from '../core/http.js';
import { PaddockError } from '../core/errors.js';
import { backoffMs, sleep } from '../core/http.js';
import { ndjson } from '../core/streams.js';
import { segment } from './types.js';

/** A background process as the server describes it (`id` is `proc_…`; `exit_code` is 128 + N when killed by signal N). */
export type ProcessInfo = ResponseOf<'/v1/sandboxes/{id}/processes/{pid}', 'get'>;
export type ProcessStatus = ProcessInfo['status'];
export type ProcessSignal = BodyOf<'/v1/sandboxes/{id}/processes/{pid}/signal', 'post'>['signal'];
type OutputPage = ResponseOf<'/v1/sandboxes/{id}/processes/{pid}/output', 'get'>;
/** A piece of output; `offset` is its first byte in the process's output (stdout and stderr together). */
export type OutputChunk = OutputPage['chunks'][number];

export interface ProcessOutput {
  chunks: OutputChunk[];
  nextOffset: number;
  /** The requested offset had already left the 1 MiB ring: the chunks start at the oldest byte kept. */
  truncated: boolean;
  status: ProcessStatus;
  exitCode: number | null;
}

export interface StartProcessOptions {
  env?: Record<string, string>;
  /** Default /workspace. */
  cwd?: string;
  /** A label to find it again (`processes.list({tag})`): 1-64 of [A-Za-z0-9._:-]. */
  tag?: string;
}

export interface AttachOptions {
  /** Output byte to start from; default 0 (everything still kept). */
  offset?: number;
  onStdout?: (data: string) => void;
  onStderr?: (data: string) => void;
  /** Stops following (the process keeps running); the promise then rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface ProcessExit {
  exitCode: number | null;
  signal: string | null;
}

/** The NDJSON lines of a follow (a stream, so not in /openapi.json's schemas). */
type FollowLine = { type: 'stdout' | 'stderr'; offset: number; data: string } | { type: 'truncated'; offset: number } | { type: 'exit'; exit_code: number | null; signal: string | null };

/** Consecutive failed reconnects before attach gives up. */
const MAX_RECONNECTS = 5;

export class ProcessHandle {
  constructor(
    private readonly http: Http,
    /** The process as last read from the server. */
    public info: ProcessInfo,
  ) {}

  get id(): string {
    return this.info.id;
  }

  private get path(): string {
    return `/v1/sandboxes/${segment(this.info.sandbox_id)}/processes/${segment(this.info.id)}`;
  }

  /** Reads the process again. */
  async refresh(): Promise<ProcessInfo> {
    this.info = await this.http.request<ProcessInfo>('GET', this.path);
    return this.info;
  }

  /** The output kept from `offset` on, without waiting. */
  async output(options: { offset?: number } = {}): Promise<ProcessOutput> {
    const answer = await this.http.request<OutputPage>('GET', `${this.path}/output`, {
      query: { offset: options.offset ?? 0 },
    });
    return { chunks: answer.chunks, nextOffset: answer.next_offset, truncated: answer.truncated, status: answer.status, exitCode: answer.exit_code };
  }

  /**
   * Follows the output live until the process exits, calling onStdout/onStderr for each piece; resolves
   * with how it ended. A dropped stream is resumed from the last byte received.
   */
  async attach(options: AttachOptions = {}): Promise<ProcessExit> {
    // A chunk is decoded to text per record on the server, so its text does not always re-encode to its byte
    // length (a character split between records). A reconnect therefore resumes at the start of the last
    // chunk received, where the server cuts the same record again, and skips what was already delivered.
    let resumeAt = options.offset ?? 0;
    let delivered = -1;
    for (let failures = 0; ;) {
      try {
        const response = await this.http.stream('GET', `${this.path}/output`, { query: { offset: resumeAt, follow: true }, signal: options.signal });
        for await (const line of ndjson<FollowLine>(response)) {
          failures = 0;
          if (line.type === 'stdout' || line.type === 'stderr') {
            if (line.offset <= delivered) continue;
            delivered = resumeAt = line.offset;
            (line.type === 'stdout' ? options.onStdout : options.onStderr)?.(line.data);
          } else if (line.type === 'exit') {
            this.info = { ...this.info, status: 'exited', exit_code: line.exit_code, signal: line.signal };
            return { exitCode: line.exit_code, signal: line.signal };
          }
        }
        throw new PaddockError({ status: 0, code: 'stream_ended', message: 'the output stream ended before the process exited' });
      } catch (error) {
        if (options.signal?.aborted) throw error;
        // A server answer (404, 401…) will not change by asking again; a broken connection may.
        if (error instanceof PaddockError && error.status !== 0) throw error;
        if (++failures > MAX_RECONNECTS) throw error;
        await sleep(backoffMs(failures - 1), options.signal);
      }
    }
  }

  /** Resolves once the process has exited, with its exit code and signal. */
  async wait(options: { signal?: AbortSignal } = {}): Promise<ProcessExit> {
    const info = await this.refresh();
    if (info.status === 'exited') return { exitCode: info.exit_code, signal: info.signal };
    return this.attach({ offset: info.output_bytes, signal: options.signal });
  }

  /** Writes to the process's stdin; `eof` closes it afterwards. */
  async sendStdin(data: string, options: { eof?: boolean } = {}): Promise<void> {
    await this.http.request('POST', `${this.path}/stdin`, { body: { data, ...(options.eof ? { eof: true } : {}) } });
  }

  /** Sends `signal` to the process's whole process group. */
  async kill(signal: ProcessSignal = 'SIGKILL'): Promise<ProcessInfo> {
    this.info = await this.http.request<ProcessInfo>('POST', `${this.path}/signal`, { body: { signal } });
    return this.info;
  }
}

export class Processes {
  constructor(
    private readonly http: Http,
    private readonly sandboxId: string,
  ) {}

  private get path(): string {
    return `/v1/sandboxes/${segment(this.sandboxId)}/processes`;
  }

  /** Starts `command` (run by /bin/sh -c) in the background and returns at once. */
  async start(command: string, options: StartProcessOptions = {}): Promise<ProcessHandle> {
    const info = await this.http.request<ProcessInfo>('POST', this.path, { body: { command, ...options } });
    return new ProcessHandle(this.http, info);
  }

  /** Newest first. */
  async list(filter: { status?: ProcessStatus; tag?: string } = {}): Promise<ProcessHandle[]> {
    const answer = await this.http.request<{ items: ProcessInfo[] }>('GET', this.path, { query: filter });
    return answer.items.map((info) => new ProcessHandle(this.http, info));
  }

  async get(id: string): Promise<ProcessHandle> {
    return new ProcessHandle(this.http, await this.http.request<ProcessInfo>('GET', `${this.path}/${segment(id)}`));
  }
}
