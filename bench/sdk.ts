// The SDK's cost per call: `sandbox.commands.run('true')` against a raw `fetch` of the same
// POST /v1/sandboxes/{id}/exec (same headers, an Idempotency-Key included, so the server does the same
// work), interleaved in one run on one sandbox (runc).
import { Paddock } from '../sdk/src/index.js';
import { startBenchApp } from './bench-app.js';
import type { BenchRow } from './table.js';

const ITERATIONS = Number(process.env.BENCH_SDK_ITERATIONS ?? 300);
const WARMUP = 20;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.floor(values.length * p)];

export async function benchSdk(): Promise<BenchRow[]> {
  const bench = await startBenchApp('runc', 'python-311');
  const paddock = new Paddock({ url: bench.base, apiKey: bench.apiKey });
  const sandbox = await paddock.sandboxes.create({ template: 'python-311', network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1 });
  const url = `${bench.base}/v1/sandboxes/${sandbox.id}/exec`;
  async function raw(): Promise<void> {
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${bench.apiKey}`, 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ command: 'true' }),
    });
    const answer = (await response.json()) as { exit_code: number };
    if (answer.exit_code !== 0) throw new Error(`raw exec answered ${JSON.stringify(answer)}`);
  }
  async function throughSdk(): Promise<void> {
    const result = await sandbox.commands.run('true');
    if (result.exitCode !== 0) throw new Error(`sdk exec answered ${JSON.stringify(result)}`);
  }
  try {
    for (let i = 0; i < WARMUP; i++) {
      await raw();
      await throughSdk();
    }
    const sdkTimes: number[] = [];
    const rawTimes: number[] = [];
    for (let i = 0; i < ITERATIONS; i++) {
      // Alternate which goes first, so neither always runs on the warmer connection or cache.
      for (const [run, times] of i % 2
        ? ([
            [raw, rawTimes],
            [throughSdk, sdkTimes],
          ] as const)
        : ([
            [throughSdk, sdkTimes],
            [raw, rawTimes],
          ] as const)) {
        const started = performance.now();
        await run();
        times.push(performance.now() - started);
      }
    }
    const goal = median(rawTimes) * 1.05 + 0.2;
    return [
      {
        what: `SDK \`sandbox.commands.run('true')\` round trip median vs a raw fetch of POST …/exec (runc, ${ITERATIONS} each, interleaved)`,
        ours: median(sdkTimes),
        baseline: median(rawTimes),
        unit: 'ms',
        better: 'lower',
        goal: `≤ 1.05× + 0.2 ms (${goal.toFixed(2)} ms)${median(sdkTimes) <= goal ? '' : ' — missed'}`,
      },
      { what: 'SDK `commands.run` p99 vs raw fetch p99', ours: percentile(sdkTimes, 0.99), baseline: percentile(rawTimes, 0.99), unit: 'ms', better: 'lower' },
    ];
  } finally {
    await sandbox.destroy();
    await bench.close();
  }
}
