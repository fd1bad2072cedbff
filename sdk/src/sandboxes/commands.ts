// `sandbox.commands.run`: one command, buffered (POST …/exec) or streamed as it runs (POST …/exec/stream),
// or started in the background as a process.
import type { Http } from '../core/http.js';
import { ConflictError, PaddockError } from '../core/errors.js';
import { ndjson } from '../core/streams.js';
import type { ProcessHandle, Processes } from './processes.js';
import { segment, type ExecAnswer, type ExecBody } from './types.js';

export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** stdout or stderr passed 1 MiB and was cut. */
  truncated: boolean;
  /** The command ran past `timeoutMs` and was killed (exit code 124). */
  timedOut: boolean;
  durationMs: number;
}

export interface RunOptions {
  /** Called with each piece of stdout as it arrives; makes the call stream. */
  onStdout?: (data: string) => void;
  /** Called with each piece of stderr as it arrives; makes the call stream. */
  onStderr?: (data: string) => void;
  /** Kill the command after this long (rounded up to whole seconds, 1-300; default 300). */
  timeoutMs?: number;
  /** Merged over the sandbox env for this command. */
  env?: Record<string, string>;
  /** Absolute directory to run in; default /workspace. */
  cwd?: string;
  signal?: AbortSignal;
}

const MAX_TIMEOUT_SECONDS = 300;
/** The HTTP call waits for the command: its own timeout is the command's plus room for the answer. */
const ANSWER_MARGIN_MS = 30_000;

interface ExitLine {
  type: 'exit';
  exit_code: number;
  error?: string;
  timed_out?: boolean;
  truncated?: boolean;
  duration_ms?: number;
}
type StreamLine = { type: 'stdout' | 'stderr'; data: string } | ExitLine;

/** Exec answers 200 with `error` when the sandbox is not running (by the spec); the SDK makes it an exception. */
function notRunning(message: string): PaddockError {
  return new ConflictError({ status: 409, code: 'sandbox_not_running', message });
}

export class Commands {
  constructor(
    private readonly http: Http,
    private readonly sandboxId: string,
    private readonly processes: Processes,
  ) {}

  run(command: string, options: RunOptions & { background: true; tag?: string }): Promise<ProcessHandle>;
  run(command: string, options?: RunOptions & { background?: false }): Promise<CommandResult>;
  async run(command: string, options: RunOptions & { background?: boolean; tag?: string } = {}): Promise<CommandResult | ProcessHandle> {
    if (options.background) return this.processes.start(command, { env: options.env, cwd: options.cwd, tag: options.tag });
    const body: ExecBody = { command, env: options.env, cwd: options.cwd };
    if (options.timeoutMs !== undefined) body.timeout = Math.min(MAX_TIMEOUT_SECONDS, Math.max(1, Math.ceil(options.timeoutMs / 1000)));
    const httpTimeoutMs = (body.timeout ?? MAX_TIMEOUT_SECONDS) * 1000 + ANSWER_MARGIN_MS;
    if (options.onStdout || options.onStderr) return this.stream(body, options, httpTimeoutMs);
    const answer = await this.http.request<ExecAnswer>('POST', `/v1/sandboxes/${segment(this.sandboxId)}/exec`, { body, signal: options.signal, timeoutMs: httpTimeoutMs });
    if (answer.error) throw notRunning(answer.error);
    return { exitCode: answer.exit_code, stdout: answer.stdout, stderr: answer.stderr, truncated: answer.truncated, timedOut: answer.timed_out, durationMs: answer.duration_ms };
  }

  private async stream(body: ExecBody, options: RunOptions, httpTimeoutMs: number): Promise<CommandResult> {
    // Not repeated on a dropped connection: the command may already have run.
    const response = await this.http.stream('POST', `/v1/sandboxes/${segment(this.sandboxId)}/exec/stream`, { body, idempotent: false, signal: options.signal, timeoutMs: httpTimeoutMs });
    let stdout = '';
    let stderr = '';
    for await (const line of ndjson<StreamLine>(response)) {
      if (line.type === 'stdout') {
        stdout += line.data;
        options.onStdout?.(line.data);
      } else if (line.type === 'stderr') {
        stderr += line.data;
        options.onStderr?.(line.data);
      } else if (line.type === 'exit') {
        if (line.error) throw notRunning(line.error);
        return { exitCode: line.exit_code, stdout, stderr, truncated: line.truncated ?? false, timedOut: line.timed_out ?? false, durationMs: line.duration_ms ?? 0 };
      }
    }
    throw new PaddockError({ status: 0, code: 'stream_ended', message: 'the exec stream ended before the command exited' });
  }
}
