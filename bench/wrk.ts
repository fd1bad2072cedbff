// Load from wrk (Debian's package, installed by scripts/install-system.sh): a C client whose one thread
// uses a fraction of a core, so on a small machine the figure is the proxy's and the server's, not
// the load generator's share of the CPU.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

export interface WrkResult {
  requestsPerSecond: number;
  requests: number;
  /** Answers other than 2xx/3xx plus socket errors (connect, read, write, timeout). */
  failures: number;
  /** What wrk printed. */
  output: string;
}

export async function wrkLoad(url: string, headers: Record<string, string> = {}, connections = 32): Promise<WrkResult> {
  const args = ['-t1', `-c${connections}`, `-d${DURATION_SECONDS}s`];
  // wrk replaces its own Host header only when the name is spelled "Host"; any other spelling adds a second one.
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name.toLowerCase() === 'host' ? 'Host' : name}: ${value}`);
  let stdout: string;
  try {
    ({ stdout } = await promisify(execFile)('wrk', [...args, url]));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw new Error('wrk is not installed: run scripts/install-system.sh');
    throw err;
  }
  const number = (pattern: RegExp) => Number(pattern.exec(stdout)?.[1] ?? 0);
  const requestsPerSecond = number(/^Requests\/sec:\s+([\d.]+)/m);
  if (!requestsPerSecond) throw new Error(`wrk printed no rate:\n${stdout}`);
  const socketErrors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  return {
    requestsPerSecond,
    requests: number(/^\s*(\d+) requests in/m),
    failures: number(/Non-2xx or 3xx responses:\s+(\d+)/) + (socketErrors ? socketErrors.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0),
    output: stdout,
  };
}
