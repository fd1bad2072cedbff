// Terminal keystroke → echo round trip through the WebSocket terminal, against the same sandbox's PTY
// driven directly through the runtime (no HTTP, no WebSocket), same run.
import WebSocket from 'ws';
import type { RuntimeName } from '../src/runtime/index.js';
import { startBenchApp } from './bench-app.js';
import type { BenchRow } from './table.js';

const KEYSTROKES = Number(process.env.BENCH_KEYSTROKES ?? 200);
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.floor(values.length * p)];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Types one character at a time and times until the terminal echoes it back. */
async function echoTimes(send: (data: string) => void, onOutput: (listener: (text: string) => void) => void): Promise<number[]> {
  let waiting: ((text: string) => void) | null = null;
  onOutput((text) => waiting?.(text));
  const times: number[] = [];
  for (let i = 0; i < KEYSTROKES; i++) {
    const started = performance.now();
    await new Promise<void>((resolve) => {
      waiting = (text) => {
        if (text.includes('x')) resolve();
      };
      send('x');
    });
    times.push(performance.now() - started);
    if (i % 50 === 49) send('\u0015'); // Ctrl-U clears the line now and then
    await sleep(2);
  }
  return times;
}

export async function benchTerminal(runtimeName: RuntimeName = 'runc'): Promise<BenchRow[]> {
  const bench = await startBenchApp(runtimeName, 'python-311');
  const { services, runtime, apiKey, port } = bench;
  const principal = (await services.accounts.authenticate(apiKey))!;
  const sandbox = await services.sandboxes!.create(principal, { template: 'python-311', network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1 });
  try {
    const socket = new WebSocket(`ws://127.0.0.1:${port}/v1/sandboxes/${sandbox.id}/terminal`, { headers: { authorization: `Bearer ${apiKey}` } });
    const listeners: ((text: string) => void)[] = [];
    socket.on('message', (data, isBinary) => {
      if (isBinary) for (const listener of listeners) listener(data.toString());
    });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    await sleep(1500); // the login shell prints its prompt
    const throughWebSocket = await echoTimes(
      (data) => socket.send(Buffer.from(data)),
      (listener) => listeners.push(listener),
    );
    socket.close();

    const pty = await runtime.openPty(sandbox.id, { cols: 80, rows: 24 });
    const ptyListeners: ((text: string) => void)[] = [];
    pty.onData((data) => {
      for (const listener of ptyListeners) listener(data.toString());
    });
    await sleep(1500);
    const direct = await echoTimes(
      (data) => pty.write(data),
      (listener) => ptyListeners.push(listener),
    );
    pty.kill();

    return [
      { what: `terminal keystroke → echo p50 (${runtimeName}) vs the PTY driven directly`, ours: percentile(throughWebSocket, 0.5), baseline: percentile(direct, 0.5), unit: 'ms', better: 'lower' },
      { what: `terminal keystroke → echo p99 (${runtimeName}) vs the PTY driven directly`, ours: percentile(throughWebSocket, 0.99), baseline: percentile(direct, 0.99), unit: 'ms', better: 'lower' },
    ];
  } finally {
    await services.sandboxes!.destroy(principal.accountId, sandbox.id);
    await bench.close();
  }
}
