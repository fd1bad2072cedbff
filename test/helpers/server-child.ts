// Starts a helper script that runs a Paddock server in its own process (so a test can kill -9 it) and
// waits for the JSON line with its URL that the script prints once the server listens.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export interface ServerChild {
  child: ChildProcess;
  url: string;
}

/** `script` is relative to the project root; `what` names the server in errors; `spawned` hears of the
 * child at once, so a test can kill it even when it never starts. */
export function startServerChild(script: string, args: string[], what: string, spawned?: (child: ChildProcess) => void): Promise<ServerChild> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(script), ...args], { env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  spawned?.(child);
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} did not start: ${stderr}`)), 90_000);
    child.stdout!.on('data', (d) => {
      stdout += d;
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line) {
        clearTimeout(timer);
        resolve({ child, url: JSON.parse(line).url });
      }
    });
    child.on('exit', (code) => reject(new Error(`${what} exited with ${code}: ${stderr}`)));
  });
}
