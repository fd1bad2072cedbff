// Runs one prepared runtime exec (`runc exec` / `runsc exec`): output caps, streaming, stdin, timeout.
import { spawn } from 'node:child_process';
import type { ExecRequest, ExecResult } from '../runtime.js';
import { CappedBuffer } from './capped-buffer.js';
import type { PreparedExec } from './driver.js';

/** Exit code reported when the command was killed for running past its timeout (as timeout(1) does). */
export const timedOutExitCode = 124;

export function runPreparedExec(prepared: PreparedExec, request: ExecRequest): Promise<ExecResult> {
  const started = performance.now();
  const child = spawn(prepared.file, prepared.args, {
    stdio: [request.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  const stdout = new CappedBuffer(request.maxOutputBytes);
  const stderr = new CappedBuffer(request.maxOutputBytes);
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout.push(chunk);
    request.onStdout?.(chunk);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr.push(chunk);
    request.onStderr?.(chunk);
  });
  if (request.stdin && child.stdin) {
    child.stdin.on('error', () => {});
    child.stdin.end(request.stdin);
  }

  let timedOut = false;
  let killing: Promise<void> | null = null;
  const killTree = (): void => {
    killing ??= prepared
      .killTree(child.pid)
      .catch(() => {})
      .finally(() => child.kill('SIGKILL'));
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killTree();
  }, request.timeoutMs);
  const onAbort = (): void => killTree();
  request.signal?.addEventListener('abort', onAbort, { once: true });

  return new Promise<ExecResult>((resolve, reject) => {
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      request.signal?.removeEventListener('abort', onAbort);
      void Promise.resolve(killing)
        .then(() => prepared.cleanup())
        .catch(() => {})
        .then(() => {
          resolve({
            exitCode: timedOut ? timedOutExitCode : (code ?? 128 + signalNumber(signal)),
            stdout: stdout.toBuffer(),
            stderr: stderr.toBuffer(),
            truncated: stdout.truncated || stderr.truncated,
            timedOut,
            durationMs: performance.now() - started,
          });
        });
    });
  });
}

function signalNumber(signal: NodeJS.Signals | null): number {
  const numbers: Partial<Record<NodeJS.Signals, number>> = { SIGHUP: 1, SIGINT: 2, SIGKILL: 9, SIGTERM: 15 };
  return (signal && numbers[signal]) ?? 1;
}
