// Scale-out speed on one machine, one PostgreSQL database: workers (runc) in this process and an api node
// (no runtime) in a process of its own. (1) Exec forwarded by the api node against the same exec sent straight to the worker,
// interleaved on one sandbox, timed by a client in its own process. (2) Placement: creates per second
// through the api node spread over three workers against one worker alone (the other two drained), the
// same concurrency from the client, alternating rounds. The three workers share this machine's cores:
// the ratio shows what placement costs and what spreading gains, not three machines' worth of hardware.
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';
import { createPgDatabase } from '../test/helpers/backends.js';
import { startServerChild, type ServerChild } from '../test/helpers/server-child.js';
import { startNode, workerNetwork, type BenchNode } from './cluster-nodes.js';
import type { BenchRow } from './table.js';
import { TimedClient, type TimedAnswer } from './timed-client.js';

const TEMPLATE = process.env.BENCH_TEMPLATE ?? 'python-311';
const EXECS = Number(process.env.BENCH_CLUSTER_EXECS ?? 200);
const CREATES = Number(process.env.BENCH_CLUSTER_CREATES ?? 36);
const IN_FLIGHT = Number(process.env.BENCH_CLUSTER_IN_FLIGHT ?? 12);
/** `0` leaves the placement rows out (the exec rows alone take a minute). */
const PLACEMENT = process.env.BENCH_CLUSTER_PLACEMENT !== '0';
const WARMUP = 20;
/** As the runc bench's cold creates: no network and a small disk, so a create is mostly the runtime's start. */
const SPEC = { template: TEMPLATE, cpus: 1, memory_mb: 256, disk_gb: 1, network_mode: 'none' };

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))];
const median = (values: number[]) => percentile(values, 0.5);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const logLoad = (when: string) =>
  process.stderr.write(
    `# load average at the ${when}: ${os
      .loadavg()
      .map((load) => load.toFixed(2))
      .join(' ')}\n`,
  );
const ms = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(2)} ms`;

/** What the bench reaches of the api node: its URL (it runs in a process of its own). */
interface ApiNode {
  base: string;
}

export async function benchCluster(): Promise<BenchRow[]> {
  const database = await createPgDatabase();
  const secret = randomBytes(32).toString('base64');
  const workers: BenchNode[] = [];
  let apiChild: ServerChild | null = null;
  const startWorker = async (index: number) => {
    const node = await startNode({
      hostId: `bench-worker-${'abc'[index]}`,
      databaseUrl: database.url,
      secret,
      template: TEMPLATE,
      network: workerNetwork(index),
      env: { PADDOCK_NODE_MAX_SANDBOXES: '64' },
    });
    workers.push(node);
    return node;
  };
  try {
    const workerA = await startWorker(0);
    apiChild = await startServerChild('bench/cluster-api-node.ts', [database.url, secret, TEMPLATE], 'the api node');
    const api: ApiNode = { base: apiChild.url };
    const { api_key: key } = await workerA.services.accounts.signup({ email: 'bench@example.com', password: 'bench password' }, 'enterprise');
    logLoad('start');
    const rows = await execRows(api, workerA, key);
    if (PLACEMENT) {
      await startWorker(1);
      await startWorker(2);
      rows.push(...(await placementRows(api, workers, key)));
    }
    logLoad('end');
    return rows;
  } finally {
    if (apiChild) await stopChild(apiChild.child);
    for (const node of workers.reverse()) await node.close().catch((error: unknown) => process.stderr.write(`closing ${node.hostId}: ${String(error)}\n`));
    await database.drop();
  }
}

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

function expectStatus(answer: TimedAnswer, status: number, what: string): TimedAnswer {
  if (answer.status !== status) throw new Error(`${what} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
  return answer;
}

/** Runs `rounds` of both requests, alternating which goes first so neither always meets the warmer caches. */
async function interleaved(rounds: number, forwarded: () => Promise<number>, local: () => Promise<number>): Promise<{ forwarded: number[]; local: number[] }> {
  const times = { forwarded: [] as number[], local: [] as number[] };
  for (let i = 0; i < rounds; i++) {
    if (i % 2) {
      times.local.push(await local());
      times.forwarded.push(await forwarded());
    } else {
      times.forwarded.push(await forwarded());
      times.local.push(await local());
    }
  }
  return times;
}

async function execRows(api: ApiNode, worker: BenchNode, key: string): Promise<BenchRow[]> {
  const viaApi = new TimedClient(api.base, key);
  const direct = new TimedClient(worker.base, key);
  try {
    const created = expectStatus(await viaApi.request('POST', '/v1/sandboxes', SPEC), 201, 'the create');
    const id = created.body.id as string;
    for (let status = created.body.status; status !== 'running'; status = (await direct.request('GET', `/v1/sandboxes/${id}`)).body.status) {
      if (status !== 'creating') throw new Error(`the sandbox is ${status}`);
      await sleep(100);
    }
    const exec = (client: TimedClient) => async () => {
      const answer = expectStatus(await client.request('POST', `/v1/sandboxes/${id}/exec`, { command: 'true' }), 200, 'exec');
      if (answer.body.exit_code !== 0) throw new Error(`exec answered ${JSON.stringify(answer.body)}`);
      return answer.ms;
    };
    const stream = (client: TimedClient) => async () => {
      const answer = expectStatus(await client.request('POST', `/v1/sandboxes/${id}/exec/stream`, { command: 'true' }), 200, 'exec/stream');
      // One NDJSON line parses as JSON whole; several come back as text.
      const last = typeof answer.body === 'string' ? JSON.parse(answer.body.trim().split('\n').at(-1) ?? '{}') : answer.body;
      if (last.type !== 'exit' || last.exit_code !== 0) throw new Error(`exec/stream ended with ${JSON.stringify(last)}`);
      return answer.ms;
    };
    await interleaved(WARMUP, exec(viaApi), exec(direct));
    const buffered = await interleaved(EXECS, exec(viaApi), exec(direct));
    const hop = await bareHop(worker.base, key, { viaApi, direct }, exec);
    await interleaved(WARMUP, stream(viaApi), stream(direct));
    const streamed = await interleaved(Math.ceil(EXECS / 2), stream(viaApi), stream(direct));
    expectStatus(await viaApi.request('DELETE', `/v1/sandboxes/${id}`), 204, 'the destroy');
    const p50 = { forwarded: median(buffered.forwarded), local: median(buffered.local) };
    const p95 = { forwarded: percentile(buffered.forwarded, 0.95), local: percentile(buffered.local, 0.95) };
    const streamP50 = { forwarded: median(streamed.forwarded), local: median(streamed.local) };
    return [
      {
        what: `exec \`true\` round trip p50, forwarded by the api node vs sent straight to the worker (runc, same sandbox, ${EXECS} each, interleaved; ${ms(p50.forwarded - p50.local)})`,
        ours: p50.forwarded,
        baseline: p50.local,
        unit: 'ms',
        better: 'lower',
        goal: '≤ local + 1 ms',
      },
      { what: `the same, p95 (${ms(p95.forwarded - p95.local)})`, ours: p95.forwarded, baseline: p95.local, unit: 'ms', better: 'lower' },
      {
        what: `the same exec, forwarded by the api node (its fast lane) vs by a bare Node.js HTTP proxy (bench/bare-proxy.mjs: Node's HTTP server and client, no look-up, no signature; ${ms(hop.bareOverLocal)} over straight to the worker in the same run; ${ms(hop.p50.forwarded - hop.p50.local)})`,
        ours: hop.p50.forwarded,
        baseline: hop.p50.local,
        unit: 'ms',
        better: 'lower',
      },
      {
        what: `exec/stream of \`true\` to its last line, p50, forwarded vs straight to the worker (${Math.ceil(EXECS / 2)} each, interleaved; ${ms(streamP50.forwarded - streamP50.local)})`,
        ours: streamP50.forwarded,
        baseline: streamP50.local,
        unit: 'ms',
        better: 'lower',
      },
    ];
  } finally {
    viaApi.close();
    direct.close();
  }
}

/** The api node's forwarding against a bare proxy to the same worker (its own process), and that proxy against going straight to the worker. */
async function bareHop(
  workerBase: string,
  key: string,
  clients: { viaApi: TimedClient; direct: TimedClient },
  exec: (client: TimedClient) => () => Promise<number>,
): Promise<{ p50: { forwarded: number; local: number }; bareOverLocal: number }> {
  const proxy = await startBareProxy(workerBase);
  const viaBare = new TimedClient(proxy.url, key);
  try {
    await interleaved(WARMUP, exec(clients.viaApi), exec(viaBare));
    const times = await interleaved(EXECS, exec(clients.viaApi), exec(viaBare));
    const floor = await interleaved(EXECS, exec(viaBare), exec(clients.direct));
    return { p50: { forwarded: median(times.forwarded), local: median(times.local) }, bareOverLocal: median(floor.forwarded) - median(floor.local) };
  } finally {
    viaBare.close();
    await stopChild(proxy.child);
  }
}

function startBareProxy(target: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['bench/bare-proxy.mjs', target], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', (line) => resolve({ child, url: JSON.parse(String(line)).url }));
    child.once('exit', (code) => reject(new Error(`the bare proxy exited with ${code}`)));
  });
}

interface Round {
  seconds: number;
  createMs: number[];
  placedOn: Map<string, number>;
}

/** CREATES creates through the api node, IN_FLIGHT at a time, each destroyed as soon as it answered. */
async function createRound(api: ApiNode, registry: BenchNode, key: string): Promise<Round> {
  const round: Round = { seconds: 0, createMs: [], placedOn: new Map() };
  const call = async (method: string, route: string, body?: object) => {
    const response = await fetch(api.base + route, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, ms: 0 };
  };
  let left = CREATES;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (left > 0) {
        left--;
        const createStarted = performance.now();
        const created = expectStatus(await call('POST', '/v1/sandboxes', SPEC), 201, 'a create');
        round.createMs.push(performance.now() - createStarted);
        const row = await registry.storage.db.selectFrom('sandboxes').select('host_id').where('id', '=', created.body.id).executeTakeFirstOrThrow();
        round.placedOn.set(row.host_id!, (round.placedOn.get(row.host_id!) ?? 0) + 1);
        expectStatus(await call('DELETE', `/v1/sandboxes/${created.body.id}`), 204, 'a destroy');
      }
    }),
  );
  round.seconds = (performance.now() - started) / 1000;
  return round;
}

async function placementRows(api: ApiNode, workers: BenchNode[], key: string): Promise<BenchRow[]> {
  const registry = workers[0].services.nodes.service;
  const others = workers.slice(1);
  const three: Round[] = [];
  const one: Round[] = [];
  // Three, one, one, three: a drift in the machine's load falls on both alike.
  for (const spread of [true, false, false, true]) {
    for (const node of others) await (spread ? registry.undrain('console', node.hostId) : registry.drain('console', node.hostId));
    await sleep(500);
    (spread ? three : one).push(await createRound(api, workers[0], key));
  }
  const rate = (rounds: Round[]) => (rounds.length * CREATES) / rounds.reduce((sum, r) => sum + r.seconds, 0);
  const spreadOf = (rounds: Round[]) =>
    workers
      .map((worker) => rounds.reduce((sum, r) => sum + (r.placedOn.get(worker.hostId) ?? 0), 0))
      .filter((count, i) => count > 0 || i === 0)
      .join('/');
  const createsP50 = (rounds: Round[]) => median(rounds.flatMap((r) => r.createMs));
  return [
    {
      what: `creates per second through the api node, placed over 3 workers vs 1 worker (runc, network none, warm pool off, ${IN_FLIGHT} in flight, ${2 * CREATES} creates each destroyed right after, alternating rounds; placed ${spreadOf(three)} vs ${spreadOf(one)}; one 2-core machine: the workers share its cores)`,
      ours: rate(three),
      baseline: rate(one),
      unit: '/s',
      better: 'higher',
    },
    { what: `create p50 under that load, 3 workers vs 1`, ours: createsP50(three), baseline: createsP50(one), unit: 'ms', better: 'lower' },
  ];
}
