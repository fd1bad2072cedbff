// Running a command in a sandbox: one path for the exec API, files and git, pipeline stages and evals.
// It checks the sandbox runs, records activity, runs the command, moves a sandbox whose processes are
// gone to `error`, and hands the exec API's commands to the lifecycle's consumers (sessions record them).
import { SandboxNotFound, SandboxNotRunning } from '../runtime/errors.js';
import type { ExecResult } from '../runtime/runtime.js';
import { enterError, getSandbox, recordActivity, type SandboxContext } from './context.js';
import type { SandboxRow } from './store.js';
import type { ExecInput } from './schemas.js';
import { notRunningMessage, SandboxUnavailable } from './unavailable.js';

export const EXEC_OUTPUT_CAP_BYTES = 1024 * 1024;
const DEFAULT_EXEC_TIMEOUT_SECONDS = 300;
/**
 * A command within this of the recorded activity leaves `last_activity_at` as it is: an agent running
 * commands back to back would otherwise write (and on PostgreSQL wait for a commit to disk) once per command.
 */
export const EXEC_ACTIVITY_GRANULARITY_MS = 1000;

export interface CommandRequest {
  command: string;
  /** Run this program directly instead of `/bin/sh -c command` (no shell, no quoting). */
  argv?: string[];
  env?: Record<string, string>;
  cwd?: string;
  stdin?: Buffer;
  timeoutMs: number;
  maxOutputBytes: number;
  signal?: AbortSignal;
  onStdout?(chunk: Buffer): void;
  onStderr?(chunk: Buffer): void;
}

/** What the exec API answers (always 200: a sandbox that cannot run the command sets `error`). */
export interface ExecOutcome {
  output: string;
  exit_code: number;
  error?: string;
  stdout: string;
  stderr: string;
  truncated: boolean;
  timed_out: boolean;
  duration_ms: number;
}

/** Runs `request` in a running sandbox; SandboxUnavailable when it is not running (or stopped meanwhile). */
export async function runCommand(ctx: SandboxContext, accountId: string, id: string, request: CommandRequest): Promise<ExecResult> {
  return runCommandIn(ctx, await getSandbox(ctx, accountId, id), request);
}

async function runCommandIn(ctx: SandboxContext, row: SandboxRow, request: CommandRequest): Promise<ExecResult> {
  const id = row.id;
  if (row.status !== 'running') throw new SandboxUnavailable(notRunningMessage(row));
  if (Date.now() - Date.parse(row.last_activity_at) >= EXEC_ACTIVITY_GRANULARITY_MS) await recordActivity(ctx, id);
  try {
    return await ctx.runtime.exec(id, request);
  } catch (error) {
    if (error instanceof SandboxNotRunning || error instanceof SandboxNotFound) {
      if (error instanceof SandboxNotFound || error.state === 'stopped') await enterError(ctx, id, ['running', 'creating'], `sandbox stopped unexpectedly: ${error.message}`);
      throw new SandboxUnavailable(error.message);
    }
    throw error;
  }
}

/** The exec API (and eval runs): the answer as the spec shapes it, recorded by the lifecycle's consumers. */
export async function execForApi(
  ctx: SandboxContext,
  accountId: string,
  id: string,
  input: ExecInput,
  stream?: { onStdout(chunk: Buffer): void; onStderr(chunk: Buffer): void },
  signal?: AbortSignal,
): Promise<ExecOutcome> {
  const row = await getSandbox(ctx, accountId, id);
  if (row.status !== 'running') return infrastructureFailure(notRunningMessage(row));
  let outcome: ExecOutcome;
  try {
    const result = await runCommandIn(ctx, row, {
      command: input.command,
      env: input.env,
      cwd: input.cwd,
      timeoutMs: (input.timeout ?? DEFAULT_EXEC_TIMEOUT_SECONDS) * 1000,
      maxOutputBytes: EXEC_OUTPUT_CAP_BYTES,
      onStdout: stream?.onStdout,
      onStderr: stream?.onStderr,
      signal,
    });
    outcome = outcomeOf(result);
  } catch (error) {
    if (!(error instanceof SandboxUnavailable)) ctx.log.error({ err: error, sandbox_id: id }, 'exec failed');
    outcome = infrastructureFailure(error instanceof SandboxUnavailable ? error.message : 'the sandbox could not run the command');
  }
  if (ctx.lifecycle.recordsExecs) {
    const mask = await ctx.secrets.maskerFor(row);
    await ctx.lifecycle.execFinished({
      accountId,
      sandboxId: id,
      command: input.command,
      exitCode: outcome.exit_code,
      durationMs: outcome.duration_ms,
      timedOut: outcome.timed_out,
      truncated: outcome.truncated,
      output: mask(outcome.output),
      ...(outcome.error ? { error: mask(outcome.error) } : {}),
    });
  }
  return outcome;
}

function outcomeOf(result: ExecResult): ExecOutcome {
  const stdout = result.stdout.toString('utf8');
  const stderr = result.stderr.toString('utf8');
  return {
    output: result.exitCode === 0 ? stdout : stderr.length ? stderr : stdout,
    exit_code: result.exitCode,
    stdout,
    stderr,
    truncated: result.truncated,
    timed_out: result.timedOut,
    duration_ms: Math.round(result.durationMs),
  };
}

function infrastructureFailure(error: string): ExecOutcome {
  return { output: '', exit_code: 1, error, stdout: '', stderr: '', truncated: false, timed_out: false, duration_ms: 0 };
}
