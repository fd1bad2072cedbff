// Runs the host tools the network layer drives (ip, nft, nsenter, iptables) with argument arrays only.
import { spawn } from 'node:child_process';

export class CommandError extends Error {
  constructor(
    readonly command: string,
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`${command} failed (exit ${exitCode ?? 'signal'}): ${stderr.trim() || 'no error output'}`);
    this.name = 'CommandError';
  }
}

export interface CommandResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface CommandOptions {
  input?: string;
  timeoutMs?: number;
}

/** Runs a command and resolves with its output whatever the exit code; rejects only if it cannot start. */
export function runCommand(file: string, args: string[], options: CommandOptions = {}): Promise<CommandResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'], timeout: options.timeoutMs });
    const stdout: Buffer[] = [];
    const stderr: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      resolve({
        stdout: Buffer.concat(stdout).toString('utf8'),
        stderr: Buffer.concat(stderr).toString('utf8'),
        exitCode: code ?? -1,
      });
    });
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** Runs a command and rejects with its stderr when it exits non-zero. */
export async function run(file: string, args: string[], options: CommandOptions = {}): Promise<string> {
  const result = await runCommand(file, args, options);
  if (result.exitCode !== 0) throw new CommandError([file, ...args].join(' '), result.exitCode, result.stderr);
  return result.stdout;
}
