// Background output latency: a process inside the sandbox prints a line carrying its wall-clock time every
// INTERVAL ms; a client following its output (NDJSON) notes when each line arrives. The baseline is the same
// program run through POST /exec/stream in the same sandbox, same run.
import type { RuntimeName } from '../src/runtime/index.js';
import { follow } from '../test/processes/follow.js';
import { startBenchApp } from './bench-app.js';
import type { BenchRow } from './table.js';

const LINES = Number(process.env.BENCH_PROCESS_LINES ?? 200);
const INTERVAL_MS = 20;
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.floor(values.length * p)];
const wallMs = () => performance.timeOrigin + performance.now();

const PRINTER = `python3 -u -c 'import time
time.sleep(0.3)
for i in range(${LINES}):
    print(time.time_ns(), flush=True)
    time.sleep(${INTERVAL_MS / 1000})'`;

/** write → receive for every whole line in `text` chunks, each stamped with when it arrived. */
function latencies(pieces: { data: string; at: number }[]): number[] {
  const times: number[] = [];
  let pending = '';
  for (const piece of pieces) {
    pending += piece.data;
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) if (/^\d+$/.test(line)) times.push(piece.at - Number(line) / 1e6);
  }
  return times;
}

async function throughExecStream(url: string, key: string, sandboxId: string): Promise<number[]> {
  const response = await fetch(`${url}/v1/sandboxes/${sandboxId}/exec/stream`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ command: PRINTER }),
  });
  const pieces: { data: string; at: number }[] = [];
  let pending = '';
  const decoder = new TextDecoder();
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    const at = wallMs();
    pending += decoder.decode(chunk, { stream: true });
    const lines = pending.split('\n');
    pending = lines.pop()!;
    for (const line of lines) {
      const event = JSON.parse(line);
      if (event.type === 'stdout') pieces.push({ data: event.data, at });
    }
  }
  return latencies(pieces);
}

async function throughFollow(url: string, key: string, sandboxId: string): Promise<number[]> {
  const started = await fetch(`${url}/v1/sandboxes/${sandboxId}/processes`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ command: PRINTER }),
  });
  const { id } = (await started.json()) as { id: string };
  const pieces: { data: string; at: number }[] = [];
  await follow(url, key, `/v1/sandboxes/${sandboxId}/processes/${id}`, {
    onEvent: (event) => {
      if (event.type === 'stdout') pieces.push({ data: event.data!, at: wallMs() });
    },
  });
  return latencies(pieces);
}

export async function benchProcesses(runtimeName: RuntimeName): Promise<BenchRow[]> {
  const bench = await startBenchApp(runtimeName, 'python-311');
  const { services, apiKey, port } = bench;
  const url = `http://127.0.0.1:${port}`;
  const principal = (await services.accounts.authenticate(apiKey))!;
  const sandbox = await services.sandboxes!.create(principal, { template: 'python-311', network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1 });
  try {
    const followed = await throughFollow(url, apiKey, sandbox.id);
    const streamed = await throughExecStream(url, apiKey, sandbox.id);
    if (followed.length < LINES * 0.99 || streamed.length < LINES * 0.99) throw new Error(`lines lost: followed ${followed.length}, streamed ${streamed.length} of ${LINES}`);
    return [
      {
        what: `background output write → followed chunk p50 (${runtimeName}) vs exec/stream`,
        ours: percentile(followed, 0.5),
        baseline: percentile(streamed, 0.5),
        unit: 'ms',
        better: 'lower',
        goal: '≤ 5 ms',
      },
      { what: `background output write → followed chunk p95 (${runtimeName}) vs exec/stream`, ours: percentile(followed, 0.95), baseline: percentile(streamed, 0.95), unit: 'ms', better: 'lower' },
    ];
  } finally {
    await services.sandboxes!.destroy(principal.accountId, sandbox.id);
    await bench.close();
  }
}
