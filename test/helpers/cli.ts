// Runs the built `paddock` binary as a real child process.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const BIN = path.resolve('bin/paddock.js');

/** The warm pool is off unless a test asks for it (PADDOCK_WARM_POOL in `env`): its sandboxes would count as leftovers. */
const serverDefaults = { PADDOCK_WARM_POOL: '0' };

export interface Served {
  child: ChildProcess;
  url: string;
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code. */
  exited: Promise<number | null>;
}

/** `node` is the Node.js binary that runs it: the one running the tests unless a test names another. */
export function runCli(args: string[], env: Record<string, string | undefined> = {}, node = process.execPath): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(node, [BIN, ...args], { env: { ...process.env, ...serverDefaults, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export function startServe(args: string[], env: Record<string, string | undefined> = {}, timeoutMs = 20_000, node = process.execPath): Promise<Served> {
  const child = spawn(node, [BIN, 'serve', ...args], { env: { ...process.env, ...serverDefaults, ...env } });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not become ready:\n${stdout}\n${stderr}`)), timeoutMs);
    const check = () => {
      const match = /^listening on (http:\/\/\S+)$/m.exec(stdout);
      if (match) {
        clearTimeout(timer);
        child.stdout!.off('data', check);
        resolve({ child, url: match[1], stdout: () => stdout, stderr: () => stderr, exited });
      }
    };
    child.stdout!.on('data', check);
    exited.then((code) => reject(new Error(`serve exited with ${code}:\n${stdout}\n${stderr}`)));
  });
}

/** The client commands run against `env()` (read at each call: tests set it in beforeAll); `json` adds --json, requires exit 0 and parses stdout. */
export function clientCommands(env: () => Record<string, string | undefined>) {
  const cli = (...args: string[]) => runCli(args, env());
  const json = async (...args: string[]) => {
    const result = await cli(...args, '--json');
    if (result.code !== 0) throw new Error(`paddock ${args.join(' ')} --json exited ${result.code}: ${result.stderr}`);
    return JSON.parse(result.stdout);
  };
  return { cli, json };
}
