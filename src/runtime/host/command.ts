// Runs host programs with argument arrays (never a shell string) and reports failures with their stderr.
import { execFile, spawn, type ExecFileOptions } from 'node:child_process';
import { open, readFile } from 'node:fs/promises';

export class CommandFailed extends Error {
  constructor(
    readonly file: string,
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
    /** Killed at its `timeoutMs`: the program did not answer in time (as opposed to answering with a failure). */
    readonly timedOut = false,
  ) {
    super(timedOut ? `${file} ${args.join(' ')} did not answer in time` : `${file} ${args.join(' ')} failed (exit ${exitCode}): ${stderr.trim().slice(-2000)}`);
  }
}

export interface CommandOutput {
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  input?: string | Buffer;
  /** Runs the command under `nice -n` this: background work nobody is waiting on yields the CPU to requests. */
  niceness?: number;
}

export function run(program: string, programArgs: readonly string[], options: RunOptions = {}): Promise<CommandOutput> {
  const [file, args] = options.niceness ? ['nice', ['-n', String(options.niceness), program, ...programArgs]] : [program, programArgs];
  const execOptions: ExecFileOptions = {
    cwd: options.cwd,
    env: options.env,
    timeout: options.timeoutMs ?? 0,
    killSignal: 'SIGKILL',
    maxBuffer: 64 * 1024 * 1024,
    encoding: 'utf8',
  };
  return new Promise((resolve, reject) => {
    const child = execFile(file, args, execOptions, (error, stdout, stderr) => {
      const out = String(stdout);
      const err = String(stderr);
      if (error) {
        const code = typeof (error as NodeJS.ErrnoException).code === 'number' ? Number(error.code) : null;
        const timedOut = Boolean(options.timeoutMs) && (error as { killed?: boolean }).killed === true;
        reject(new CommandFailed(file, args, code, err || error.message, timedOut));
        return;
      }
      resolve({ stdout: out, stderr: err });
    });
    if (options.input !== undefined) child.stdin?.end(options.input);
  });
}

/** Like run, but resolves false instead of throwing; for probes and idempotent clean-up. */
export async function succeeds(file: string, args: readonly string[], options: RunOptions = {}): Promise<boolean> {
  try {
    await run(file, args, options);
    return true;
  } catch {
    return false;
  }
}

/**
 * Runs a program whose children outlive it holding its stdio (`runc run --detach`): stdout goes nowhere
 * and stderr to `logFile`, so waiting for the program never waits for the children.
 */
export async function runDetached(file: string, args: readonly string[], logFile: string, timeoutMs: number): Promise<void> {
  const log = await open(logFile, 'w', 0o600);
  try {
    const exitCode = await new Promise<number | null>((resolve, reject) => {
      const child = spawn(file, args, { stdio: ['ignore', 'ignore', log.fd] });
      const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
      child.once('error', reject);
      child.once('exit', (code) => {
        clearTimeout(timer);
        resolve(code);
      });
    });
    if (exitCode !== 0) {
      throw new CommandFailed(file, args, exitCode, await readFile(logFile, 'utf8').catch(() => ''));
    }
  } finally {
    await log.close();
  }
}
