// The per-sandbox figures docs/scale-out.md sizes a cluster from, on one node with PostgreSQL: statements
// per create, exec and destroy (against one `select 1`), statements and writes per idle sandbox-second,
// host memory and CPU per idle sandbox on runc and gVisor, and creates per second with the warm pool off and on.
import fs from 'node:fs';
import { sql } from 'kysely';
import { templateLowerDirs, type RuntimeName } from '../src/runtime/index.js';
import { createPgDatabase } from '../test/helpers/backends.js';
import { bareRuntime } from './bare-runtime.js';
import { startBenchApp, type BenchApp, type BenchNetwork } from './bench-app.js';
import { StatementCounter, topStatements, type StatementCount } from './statement-counter.js';
import type { BenchRow } from './table.js';

const TEMPLATE = process.env.BENCH_TEMPLATE ?? 'python-311';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const IDLE = Number(process.env.BENCH_SCALE_IDLE ?? 20);
const IDLE_SECONDS = Number(process.env.BENCH_SCALE_IDLE_SECONDS ?? 30);
const BURST = Number(process.env.BENCH_SCALE_BURST ?? 10);
const VERBOSE = Boolean(process.env.BENCH_SCALE_VERBOSE);

/** A host network of its own (PADDOCK_TEST_NETWORK_BASE=90 by convention): the bench runs beside test suites. */
const NETWORK: BenchNetwork = { bridgeName: 'pdkscale90br', subnet: '10.253.0.0/16', tableName: 'paddock_scale90', interfacePrefix: 'ps90', netnsPrefix: 'pdkscale90-' };

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const SPEC = { template: TEMPLATE, cpus: 1 };

export async function benchScale(): Promise<BenchRow[]> {
  const counter = new StatementCounter();
  counter.install();
  try {
    let bareRunMs = 0;
    const rows = await withPgApp('runc', {}, async (bench) => {
      bareRunMs = await bareRunMedian(bench);
      return statementsAndIdle(bench, counter, bareRunMs);
    });
    rows.push(await withPgApp('runc', { PADDOCK_WARM_POOL: `${TEMPLATE}:${BURST}` }, (bench) => warmBurst(bench, bareRunMs)));
    rows.push(...(await withPgApp('gvisor', {}, (bench) => idleMemoryAndCpu(bench, 'gvisor'))));
    return rows;
  } finally {
    counter.uninstall();
  }
}

/** `runc run` of `true` on the template's layers, one after another: the create-rate baseline. */
async function bareRunMedian(bench: BenchApp): Promise<number> {
  const bare = await bareRuntime('runc', (await templateLowerDirs(bench.dataDir, TEMPLATE))!);
  try {
    const runs: number[] = [];
    for (let i = 0; i < ROUNDS; i++) runs.push(await bare.runOnce());
    return median(runs);
  } finally {
    await bare.close();
  }
}

async function withPgApp<T>(runtimeName: RuntimeName, env: Record<string, string>, body: (bench: BenchApp) => Promise<T>): Promise<T> {
  const database = await createPgDatabase();
  try {
    const bench = await startBenchApp(runtimeName, TEMPLATE, { DATABASE_URL: database.url, ...env }, NETWORK);
    try {
      return await body(bench);
    } finally {
      await bench.close();
    }
  } finally {
    await database.drop();
  }
}

function report(label: string, count: StatementCount): void {
  if (VERBOSE) process.stderr.write(`\n# ${label}: ${count.total} statements (${count.inRequest} in the request), ${count.writes} writes\n${topStatements(count)}\n`);
}

async function statementsAndIdle(bench: BenchApp, counter: StatementCounter, bareRunMs: number): Promise<BenchRow[]> {
  const { api } = bench;
  counter.watch(bench.server);
  await sleep(2000);
  counter.snapshot();
  await sql`select 1`.execute(bench.storage.db);
  const selectOne = counter.snapshot().total;

  // The node with nothing running: what its own background passes send per second.
  await sleep(1000);
  counter.snapshot();
  let cpuBefore = process.cpuUsage();
  await sleep(IDLE_SECONDS * 1000);
  const empty = counter.snapshot();
  const emptyCpu = cpuShare(process.cpuUsage(cpuBefore), IDLE_SECONDS);
  report('empty node, idle window', empty);

  // Creates one at a time (each counted with the background passes that ran meanwhile), then execs.
  const createCounts: number[] = [];
  const createWrites: number[] = [];
  const created: string[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    counter.snapshot();
    const sandbox = await api('POST', '/v1/sandboxes', SPEC);
    if (!sandbox?.id) throw new Error(`create failed: ${JSON.stringify(sandbox)}`);
    const count = counter.snapshot();
    if (i === 0) report('one create', count);
    createCounts.push(count.inRequest);
    createWrites.push(count.writesInRequest);
    created.push(sandbox.id);
  }
  const execCounts: number[] = [];
  const execWrites: number[] = [];
  for (let i = 0; i < ROUNDS * 3; i++) {
    counter.snapshot();
    const exec = await api('POST', `/v1/sandboxes/${created[0]}/exec`, { command: 'true' });
    if (exec?.exit_code !== 0) throw new Error(`exec failed: ${JSON.stringify(exec)}`);
    const count = counter.snapshot();
    if (i === 0) report('one exec', count);
    execCounts.push(count.inRequest);
    execWrites.push(count.writesInRequest);
  }

  // IDLE sandboxes left alone: statements, writes and this process's CPU against the empty node.
  while (created.length < IDLE) {
    const batch = await Promise.all(Array.from({ length: Math.min(5, IDLE - created.length) }, () => api('POST', '/v1/sandboxes', SPEC)));
    for (const sandbox of batch) {
      if (!sandbox?.id) throw new Error(`create failed: ${JSON.stringify(sandbox)}`);
      created.push(sandbox.id);
    }
  }
  await sleep(3000);
  const cgroupCpuSeconds = async () => (await Promise.all(created.map((id) => bench.runtime.usage(id)))).reduce((sum, u) => sum + u.cpuSeconds, 0);
  const sandboxCpuBefore = await cgroupCpuSeconds();
  counter.snapshot();
  cpuBefore = process.cpuUsage();
  await sleep(IDLE_SECONDS * 1000);
  const idle = counter.snapshot();
  const idleCpu = cpuShare(process.cpuUsage(cpuBefore), IDLE_SECONDS);
  const sandboxCpu = (((await cgroupCpuSeconds()) - sandboxCpuBefore) / IDLE_SECONDS) * 100;
  report(`${IDLE} idle sandboxes, idle window`, idle);
  const memory = await memoryPerSandbox(bench, created);

  const destroyCounts: number[] = [];
  const destroyWrites: number[] = [];
  for (const id of created) {
    counter.snapshot();
    await api('DELETE', `/v1/sandboxes/${id}`);
    const count = counter.snapshot();
    if (destroyCounts.length === 0) report('one destroy', count);
    destroyCounts.push(count.inRequest);
    destroyWrites.push(count.writesInRequest);
  }

  // A burst of creates at once, warm pool off.
  const start = performance.now();
  const burst: any[] = await Promise.all(Array.from({ length: BURST }, () => api('POST', '/v1/sandboxes', SPEC)));
  const burstSeconds = (performance.now() - start) / 1000;
  if (burst.some((s) => !s?.id)) throw new Error(`a create of the burst failed: ${JSON.stringify(burst.find((s) => !s?.id))}`);
  await Promise.all(burst.map((s) => api('DELETE', `/v1/sandboxes/${s.id}`)));

  const perSecond = (count: StatementCount) => count.total / IDLE_SECONDS;
  const writesPerSecond = (count: StatementCount) => count.writes / IDLE_SECONDS;
  return [
    {
      what: `PostgreSQL statements per sandbox create, sent while serving the POST (runc, warm pool off; BEGIN/COMMIT counted; ${median(createWrites)} writes) vs one \`select 1\``,
      ours: median(createCounts),
      baseline: selectOne,
      unit: 'stmts',
      better: 'lower',
    },
    { what: `PostgreSQL statements per exec (buffered, \`true\`; ${median(execWrites)} writes) vs one \`select 1\``, ours: median(execCounts), baseline: selectOne, unit: 'stmts', better: 'lower' },
    { what: `PostgreSQL statements per destroy (DELETE; ${median(destroyWrites)} writes) vs one \`select 1\``, ours: median(destroyCounts), baseline: selectOne, unit: 'stmts', better: 'lower' },
    {
      what: `PostgreSQL statements per second, node with ${IDLE} idle sandboxes vs the same node empty (${IDLE_SECONDS} s each)`,
      ours: perSecond(idle),
      baseline: perSecond(empty),
      unit: 'stmts/s',
      better: 'lower',
    },
    {
      what: `PostgreSQL writes (INSERT/UPDATE/DELETE) per second, ${IDLE} idle sandboxes vs empty`,
      ours: writesPerSecond(idle),
      baseline: Math.max(writesPerSecond(empty), 0.01),
      unit: 'writes/s',
      better: 'lower',
      note: writesPerSecond(empty) === 0 ? 'empty: 0, shown as 0.01' : undefined,
    },
    { what: `Paddock process CPU, ${IDLE} idle sandboxes vs empty (% of one core)`, ours: idleCpu, baseline: Math.max(emptyCpu, 0.01), unit: '%', better: 'lower' },
    {
      what: `CPU of the ${IDLE} idle sandboxes' own cgroups (runc, sum, % of one core) vs the Paddock process with them`,
      ours: sandboxCpu,
      baseline: Math.max(idleCpu, 0.01),
      unit: '%',
      better: 'lower',
    },
    { what: `host memory per idle sandbox (runc): cgroup + its processes outside it, of ${IDLE}, vs the 10 MB goal`, ours: memory, baseline: 10, unit: 'MB', better: 'lower' },
    { what: `creates per second, ${BURST} at once (runc, warm pool off) vs bare \`runc run\` one after another`, ours: BURST / burstSeconds, baseline: 1000 / bareRunMs, unit: '/s', better: 'higher' },
  ];
}

async function warmBurst(bench: BenchApp, bareRunMs: number): Promise<BenchRow> {
  const { api, runtime } = bench;
  const pool = () => runtime.warmPoolStatus!()[0];
  const deadline = Date.now() + 180_000;
  while (pool().ready.length < BURST) {
    if (Date.now() > deadline) throw new Error(`the warm pool held ${pool().ready.length} of ${BURST} after 3 minutes`);
    await sleep(100);
  }
  const start = performance.now();
  const burst: any[] = await Promise.all(Array.from({ length: BURST }, () => api('POST', '/v1/sandboxes', SPEC)));
  const burstSeconds = (performance.now() - start) / 1000;
  if (burst.some((s) => !s?.id)) throw new Error(`a create of the burst failed: ${JSON.stringify(burst.find((s) => !s?.id))}`);
  const claimed = pool().claimed;
  await Promise.all(burst.map((s) => api('DELETE', `/v1/sandboxes/${s.id}`)));
  return {
    what: `creates per second, ${BURST} at once from a full warm pool (runc, ${claimed} claimed) vs bare \`runc run\` one after another`,
    ours: BURST / burstSeconds,
    baseline: 1000 / bareRunMs,
    unit: '/s',
    better: 'higher',
  };
}

/** Host memory and CPU per idle sandbox: the sandboxes' cgroups, plus this process's CPU above the same node empty. */
async function idleMemoryAndCpu(bench: BenchApp, runtimeName: RuntimeName): Promise<BenchRow[]> {
  const count = Math.min(IDLE, 10);
  await sleep(2000);
  let cpuBefore = process.cpuUsage();
  await sleep(IDLE_SECONDS * 1000);
  const emptyCpu = cpuShare(process.cpuUsage(cpuBefore), IDLE_SECONDS);
  const created: string[] = [];
  for (let i = 0; i < count; i++) {
    const sandbox = await bench.api('POST', '/v1/sandboxes', SPEC);
    if (!sandbox?.id) throw new Error(`create failed: ${JSON.stringify(sandbox)}`);
    created.push(sandbox.id);
  }
  await sleep(5000);
  const cgroupCpuSeconds = async () => (await Promise.all(created.map((id) => bench.runtime.usage(id)))).reduce((sum, u) => sum + u.cpuSeconds, 0);
  const sandboxCpuBefore = await cgroupCpuSeconds();
  cpuBefore = process.cpuUsage();
  await sleep(IDLE_SECONDS * 1000);
  const idleCpu = cpuShare(process.cpuUsage(cpuBefore), IDLE_SECONDS);
  const sandboxCpu = (((await cgroupCpuSeconds()) - sandboxCpuBefore) / IDLE_SECONDS) * 100;
  const memory = await memoryPerSandbox(bench, created);
  await Promise.all(created.map((id) => bench.api('DELETE', `/v1/sandboxes/${id}`)));
  return [
    { what: `Paddock process CPU, ${count} idle sandboxes vs empty (${runtimeName}, % of one core)`, ours: idleCpu, baseline: Math.max(emptyCpu, 0.01), unit: '%', better: 'lower' },
    {
      what: `CPU of the ${count} idle sandboxes' own cgroups (${runtimeName}, sum, % of one core) vs the Paddock process with them`,
      ours: sandboxCpu,
      baseline: Math.max(idleCpu, 0.01),
      unit: '%',
      better: 'lower',
    },
    { what: `host memory per idle sandbox (${runtimeName}): cgroup + its processes outside it, of ${count}, vs the 10 MB goal`, ours: memory, baseline: 10, unit: 'MB', better: 'lower' },
  ];
}

function cpuShare(usage: NodeJS.CpuUsage, seconds: number): number {
  return ((usage.user + usage.system) / 1e6 / seconds) * 100;
}

/**
 * MB per sandbox: its cgroup's memory (runtime.usage) plus the proportional set size of host processes that
 * name the sandbox on their command line but live outside its cgroup (a gVisor gofer, a runtime shim).
 */
async function memoryPerSandbox(bench: BenchApp, ids: string[]): Promise<number> {
  const usages = await Promise.all(ids.map((id) => bench.runtime.usage(id)));
  const inCgroups = usages.reduce((sum, u) => sum + u.memoryBytes, 0);
  let outside = 0;
  for (const pid of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      const id = ids.find((candidate) => cmdline.includes(candidate));
      if (!id) continue;
      const memoryCgroup = fs
        .readFileSync(`/proc/${pid}/cgroup`, 'utf8')
        .split('\n')
        .find((line) => /:memory:|^0::/.test(line));
      if (memoryCgroup?.includes(id)) continue;
      const pss = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
      outside += Number(pss?.[1] ?? 0) * 1024;
    } catch {
      // The process ended while we read it.
    }
  }
  if (VERBOSE) process.stderr.write(`\n# memory of ${ids.length}: cgroups ${(inCgroups / 2 ** 20).toFixed(1)} MB, outside ${(outside / 2 ** 20).toFixed(1)} MB\n`);
  return (inCgroups + outside) / ids.length / 2 ** 20;
}
