// Sandbox speed and density through the real API, against the bare runtime measured in the same run:
// create → first exec, exec round trip, 50 concurrent creates, and host memory per idle sandbox.
import { templateLowerDirs, type RuntimeName } from '../src/runtime/index.js';
import { bareExec, bareRuntime } from './bare-runtime.js';
import { startBenchApp } from './bench-app.js';
import type { BenchRow } from './table.js';

const TEMPLATE = process.env.BENCH_TEMPLATE ?? 'python-311';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const DENSITY = Number(process.env.BENCH_DENSITY ?? 50);

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];

export async function benchSandboxes(runtimeName: RuntimeName): Promise<BenchRow[]> {
  const bench = await startBenchApp(runtimeName, TEMPLATE);
  const { api, runtime, dataDir } = bench;
  const spec = { template: TEMPLATE, network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1 };
  const bare = await bareRuntime(runtimeName, (await templateLowerDirs(dataDir, TEMPLATE))!);

  try {
    // create → first exec, sequentially, against a bare run of `true`.
    const ours: number[] = [];
    const baseline: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      baseline.push(await bare.runOnce());
      const start = performance.now();
      const created: any = await api('POST', '/v1/sandboxes', spec);
      const exec: any = await api('POST', `/v1/sandboxes/${created.id}/exec`, { command: 'true' });
      ours.push(performance.now() - start);
      if (exec.exit_code !== 0) throw new Error(`first exec failed: ${JSON.stringify(exec)}`);
      await api('DELETE', `/v1/sandboxes/${created.id}`);
    }

    // exec round trip through the API against the runtime's own exec into the same container, once the
    // disk pool has refilled in the background (its mkfs runs would otherwise share the CPU).
    const target: any = await api('POST', '/v1/sandboxes', spec);
    await new Promise((r) => setTimeout(r, 3000));
    const execOurs: number[] = [];
    const execBare: number[] = [];
    for (let i = 0; i < ROUNDS * 8; i++) {
      execBare.push(await bareExec(runtimeName, dataDir, target.id));
      const start = performance.now();
      await api('POST', `/v1/sandboxes/${target.id}/exec`, { command: 'true' });
      execOurs.push(performance.now() - start);
    }
    await api('DELETE', `/v1/sandboxes/${target.id}`);

    // density: DENSITY sandboxes created at once, then left idle.
    const start = performance.now();
    const many: any[] = await Promise.all(Array.from({ length: DENSITY }, () => api('POST', '/v1/sandboxes', spec)));
    const concurrentMs = performance.now() - start;
    const failed = many.filter((s) => !s?.id);
    if (failed.length) throw new Error(`${failed.length} of ${DENSITY} concurrent creates failed: ${JSON.stringify(failed[0])}`);
    await new Promise((r) => setTimeout(r, 3000));
    const usages = await Promise.all(many.map((s) => runtime.usage(s.id)));
    const perSandboxMb = usages.reduce((sum, u) => sum + u.memoryBytes, 0) / DENSITY / 1024 / 1024;
    await Promise.all(many.map((s) => api('DELETE', `/v1/sandboxes/${s.id}`)));

    const bareName = runtimeName === 'gvisor' ? 'runsc' : 'runc';
    return [
      { what: `create → first exec p50 (${runtimeName}) vs bare \`${bareName} run\``, ours: percentile(ours, 0.5), baseline: percentile(baseline, 0.5), unit: 'ms', better: 'lower', goal: runtimeName === 'runc' ? '≤ 2×' : '≤ 1.3×' },
      { what: `create → first exec p95 (${runtimeName}) vs bare \`${bareName} run\``, ours: percentile(ours, 0.95), baseline: percentile(baseline, 0.95), unit: 'ms', better: 'lower' },
      { what: `exec round trip p50 through the API (${runtimeName}) vs bare \`${bareName} exec\` into the same container`, ours: percentile(execOurs, 0.5), baseline: percentile(execBare, 0.5), unit: 'ms', better: 'lower', goal: '≤ bare + 2 ms' },
      { what: `${DENSITY} concurrent creates, total (${runtimeName}) vs ${DENSITY} × bare run p50`, ours: concurrentMs, baseline: DENSITY * percentile(baseline, 0.5), unit: 'ms', better: 'lower' },
      { what: `memory per idle sandbox, cgroup (${runtimeName}) vs the 10 MB goal`, ours: perSandboxMb, baseline: 10, unit: 'MB', better: 'lower', goal: runtimeName === 'runc' ? '≤ 10 MB' : '' },
    ];
  } finally {
    await bare.close();
    await bench.close();
  }
}
