// Sandbox speed and density through the real API, against the bare runtime measured in the same run:
// create → first exec (cold, and claimed from the warm pool), destroy, exec round trip, 50 concurrent creates,
// host memory per idle sandbox and what the warm pool holds.
import { templateLowerDirs, type RuntimeName } from '../src/runtime/index.js';
import { bareExec, bareRuntime, type BareRuntime } from './bare-runtime.js';
import { startBenchApp } from './bench-app.js';
import type { BenchRow } from './table.js';

const TEMPLATE = process.env.BENCH_TEMPLATE ?? 'python-311';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 15);
const DENSITY = Number(process.env.BENCH_DENSITY ?? 50);
const WARM = Number(process.env.BENCH_WARM_POOL ?? 2);

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];

export async function benchSandboxes(runtimeName: RuntimeName): Promise<BenchRow[]> {
  const bench = await startBenchApp(runtimeName, TEMPLATE);
  const bare = await bareRuntime(runtimeName, (await templateLowerDirs(bench.dataDir, TEMPLATE))!);
  try {
    let cold: BenchRow[];
    try {
      cold = await benchCold(runtimeName, bench, bare);
    } finally {
      // Both apps use the benchmark's host network: the warm one may start only once this one is gone.
      await bench.close();
    }
    return [...cold.slice(0, 2), ...(await benchWarm(runtimeName, bare)), ...cold.slice(2)];
  } finally {
    await bare.close();
  }
}

async function benchCold(runtimeName: RuntimeName, bench: Awaited<ReturnType<typeof startBenchApp>>, bare: BareRuntime): Promise<BenchRow[]> {
  const { api, runtime, dataDir } = bench;
  const spec = { template: TEMPLATE, network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1 };
  {
    // create → first exec, sequentially, against a bare run of `true`.
    const ours: number[] = [];
    const baseline: number[] = [];
    const destroyOurs: number[] = [];
    const destroyBare: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      baseline.push(await bare.runOnce());
      const start = performance.now();
      const created: any = await api('POST', '/v1/sandboxes', spec);
      const exec: any = await api('POST', `/v1/sandboxes/${created.id}/exec`, { command: 'true' });
      ours.push(performance.now() - start);
      if (exec.exit_code !== 0) throw new Error(`first exec failed: ${JSON.stringify(exec)}`);
      destroyBare.push(await bare.destroyOnce());
      const destroyStart = performance.now();
      await api('DELETE', `/v1/sandboxes/${created.id}`);
      destroyOurs.push(performance.now() - destroyStart);
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
      {
        what: `create → first exec p50 (${runtimeName}, cold) vs bare \`${bareName} run\``,
        ours: percentile(ours, 0.5),
        baseline: percentile(baseline, 0.5),
        unit: 'ms',
        better: 'lower',
        goal: runtimeName === 'runc' ? '≤ 2×' : '≤ 1.3×',
      },
      { what: `create → first exec p95 (${runtimeName}, cold) vs bare \`${bareName} run\``, ours: percentile(ours, 0.95), baseline: percentile(baseline, 0.95), unit: 'ms', better: 'lower' },
      {
        what: `destroy (DELETE) p50 (${runtimeName}) vs bare \`${bareName} delete --force\` of a running container`,
        ours: percentile(destroyOurs, 0.5),
        baseline: percentile(destroyBare, 0.5),
        unit: 'ms',
        better: 'lower',
      },
      {
        what: `exec round trip p50 through the API (${runtimeName}) vs bare \`${bareName} exec\` into the same container`,
        ours: percentile(execOurs, 0.5),
        baseline: percentile(execBare, 0.5),
        unit: 'ms',
        better: 'lower',
        goal: '≤ bare + 2 ms',
      },
      { what: `${DENSITY} concurrent creates, total (${runtimeName}) vs ${DENSITY} × bare run p50`, ours: concurrentMs, baseline: DENSITY * percentile(baseline, 0.5), unit: 'ms', better: 'lower' },
      { what: `memory per idle sandbox, cgroup (${runtimeName}) vs the 10 MB goal`, ours: perSandboxMb, baseline: 10, unit: 'MB', better: 'lower', goal: runtimeName === 'runc' ? '≤ 10 MB' : '' },
    ];
  }
}

/**
 * Creates that fit the warm pool (default network, disk and memory), each once the pool has refilled
 * (as when creates are further apart than a refill), against bare runs in the same rounds; then the
 * memory the full pool holds while it waits.
 */
async function benchWarm(runtimeName: RuntimeName, bare: BareRuntime): Promise<BenchRow[]> {
  const bench = await startBenchApp(runtimeName, TEMPLATE, { PADDOCK_WARM_POOL: `${TEMPLATE}:${WARM}` });
  const { api, runtime } = bench;
  const pool = () => runtime.warmPoolStatus!()[0];
  const full = async () => {
    while (pool().ready.length < WARM) await new Promise((r) => setTimeout(r, 20));
  };
  try {
    const ours: number[] = [];
    const baseline: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      await full();
      baseline.push(await bare.runOnce());
      const start = performance.now();
      const created: any = await api('POST', '/v1/sandboxes', { template: TEMPLATE, cpus: 1 });
      const exec: any = await api('POST', `/v1/sandboxes/${created.id}/exec`, { command: 'true' });
      ours.push(performance.now() - start);
      if (exec.exit_code !== 0) throw new Error(`first exec failed: ${JSON.stringify(exec)}`);
      await api('DELETE', `/v1/sandboxes/${created.id}`);
    }
    if (pool().claimed !== ROUNDS) throw new Error(`only ${pool().claimed} of ${ROUNDS} creates came from the pool`);
    await full();
    await new Promise((r) => setTimeout(r, 3000));
    const usages = await Promise.all(pool().ready.map((id) => runtime.usage(id)));
    const heldMb = usages.reduce((sum, u) => sum + u.memoryBytes, 0) / 1024 / 1024;
    const bareName = runtimeName === 'gvisor' ? 'runsc' : 'runc';
    return [
      {
        what: `create → first exec p50 (${runtimeName}, from the warm pool) vs bare \`${bareName} run\``,
        ours: percentile(ours, 0.5),
        baseline: percentile(baseline, 0.5),
        unit: 'ms',
        better: 'lower',
        goal: runtimeName === 'runc' ? '≤ 2×' : '≤ 1.3×',
      },
      {
        what: `create → first exec p95 (${runtimeName}, from the warm pool) vs bare \`${bareName} run\``,
        ours: percentile(ours, 0.95),
        baseline: percentile(baseline, 0.95),
        unit: 'ms',
        better: 'lower',
        goal: runtimeName === 'runc' ? '≤ 2×' : '≤ 1.3×',
      },
      { what: `memory the warm pool holds, ${WARM} idle sandboxes, cgroup (${runtimeName}) vs ${WARM} × the 10 MB goal`, ours: heldMb, baseline: WARM * 10, unit: 'MB', better: 'lower' },
    ];
  } finally {
    await bench.close();
  }
}
