// Agent delegation (A2A): (a) task create → its `running` status event and → `complete` received on the
// task's SSE stream, against starting the same pipeline's run directly and seeing it running / succeeded
// by polling GET run every 2 ms (what a client of the pipeline API sees), interleaved in the same run;
// the run's own server timestamps are printed too. (b) SSE fan-out: 200 tasks waiting for input, one
// open stream each on one server, all answered at once: the delay from each event's commit (the moment
// the committing transaction's afterCommit woke the readers, recorded by wrapping TaskSignals.changed) to
// its receipt by the client, p50/p99, against the same with one stream. The pipeline has no runtime:
// gate stages (`expression: true`) and, for the fan-out, an await_approval stage. SQLite.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { databaseFile, loadConfig } from '../src/config.js';
import { openStorage } from '../src/core/db/database.js';
import { migrateToLatest } from '../src/core/db/migrate.js';
import { openSse } from '../test/helpers/sse.js';
import type { BenchRow } from './table.js';

const ROUNDS = Number(process.env.BENCH_A2A_ROUNDS ?? 30);
const STREAMS = Number(process.env.BENCH_A2A_STREAMS ?? 200);
const GATES = 3;
/** Streams open in the fan-out's baseline. */
const FEW = 5;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)];

async function startServer() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-bench-a2a-'));
  const config = loadConfig({ PADDOCK_DATA: dataDir, PADDOCK_LOG_LEVEL: 'warn', PADDOCK_RATE_LIMIT_ENTERPRISE: '100000000', PADDOCK_WARM_POOL: '0' });
  const storage = openStorage({ databaseUrl: null, sqliteFile: databaseFile(config) });
  await migrateToLatest(storage.db);
  const { app, services } = await buildApp({ config, storage });
  // Commit times: TaskLog calls signals.changed(taskId) right after each commit that appended events.
  const commits = new Map<string, number[]>();
  const changed = services.a2a.signals.changed.bind(services.a2a.signals);
  services.a2a.signals.changed = (taskId: string) => {
    const times = commits.get(taskId) ?? [];
    times.push(Date.now());
    commits.set(taskId, times);
    changed(taskId);
  };
  const { api_key: apiKey } = await services.accounts.signup({ email: 'bench@example.com', password: 'bench password' }, 'enterprise');
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const api = async (method: string, route: string, body?: object): Promise<any> => {
    const response = await fetch(base + route, {
      method,
      headers: { authorization: `Bearer ${apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${route}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  const stream = (taskId: string) => openSse(`${base}/v1/a2a/tasks/${taskId}/stream`, { token: apiKey });
  return {
    api,
    stream,
    /** When each event of the task's log committed (ms since epoch), by sequence: the first commit signal at or after its created_at. */
    async eventTimes(taskId: string): Promise<Map<string, number>> {
      const rows = await storage.db.selectFrom('a2a_task_events').select(['sequence', 'created_at']).where('task_id', '=', taskId).execute();
      const signals = commits.get(taskId) ?? [];
      return new Map(rows.map((row) => [String(row.sequence), signals.find((at) => at >= Date.parse(row.created_at)) ?? NaN]));
    },
    async close() {
      await app.close();
      await storage.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

type Server = Awaited<ReturnType<typeof startServer>>;

async function agentOver(server: Server, name: string, stages: object[]) {
  const pipeline = await server.api('POST', '/v1/pipelines', { name, stages });
  const skill = { id: 'run', name: 'Run', input_schema: { type: 'object' } };
  const agent = await server.api('POST', '/v1/a2a/agents', { name, pipeline_id: pipeline.id, skills: [skill], rate_limit_rpm: 10_000 });
  return { pipeline, agent };
}

const gates = Array.from({ length: GATES }, (_, i) => ({ name: `g${i}`, type: 'gate', config: { expression: 'true' }, ...(i ? { depends_on: [`g${i - 1}`] } : {}) }));

async function createVsRun(server: Server) {
  const { pipeline, agent } = await agentOver(server, 'bench-gates', gates);
  const ours = { running: [] as number[], complete: [] as number[] };
  const base = { running: [] as number[], complete: [] as number[], serverRunning: [] as number[], serverComplete: [] as number[] };
  const baseline = async () => {
    const runStart = Date.now();
    const run = await server.api('POST', `/v1/pipelines/${pipeline.id}/runs`, {});
    let running = 0;
    let view: any;
    for (;;) {
      view = await server.api('GET', `/v1/pipelines/${pipeline.id}/runs/${run.id}`);
      if (!running && view.status !== 'pending') running = Date.now() - runStart;
      if (['succeeded', 'failed', 'canceled'].includes(view.status)) break;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    if (view.status !== 'succeeded') throw new Error(`baseline run ${view.status}`);
    return { running, complete: Date.now() - runStart, serverRunning: Date.parse(view.started_at) - runStart, serverComplete: Date.parse(view.completed_at) - runStart };
  };
  for (let round = 0; round < ROUNDS + 2; round++) {
    const measured = round >= 2; // two warm-up rounds
    // Which goes first alternates, so neither always runs on a server still busy with the other.
    const before = round % 2 === 0 ? await baseline() : null;
    // Ours: the task, followed on its stream as a client would.
    const taskStart = Date.now();
    const task = await server.api('POST', `/v1/a2a/agents/${agent.id}/tasks`, { skill_id: 'run', input: {} });
    const stream = await server.stream(task.id);
    const running = await stream.waitFor((frame) => frame.event === 'status' && frame.data.status === 'running');
    const complete = await stream.waitFor((frame) => frame.event === 'complete');
    await stream.ended;
    if (complete.data.status !== 'completed') throw new Error(`bench task ${complete.data.status}`);
    const times = before ?? (await baseline());
    if (!measured) continue;
    base.running.push(times.running);
    base.complete.push(times.complete);
    base.serverRunning.push(times.serverRunning);
    base.serverComplete.push(times.serverComplete);
    ours.running.push(running.receivedAt - taskStart);
    ours.complete.push(complete.receivedAt - taskStart);
  }
  return { ours, base };
}

/** Commit → receipt of every streamed event after the answer: `count` tasks waiting for input, all answered, `streamed` of them with their stream open. */
async function fanOut(server: Server, count: number, streamed: number): Promise<number[]> {
  const { agent } = await agentOver(server, `bench-fanout-${count}-${streamed}`, [
    { name: 'ask', type: 'await_approval', config: { message: 'go?', channels: ['dashboard'] } },
    { name: 'after', type: 'gate', config: { expression: 'true' }, depends_on: ['ask'] },
  ]);
  const tasks: any[] = [];
  for (let i = 0; i < count; i++) tasks.push(await server.api('POST', `/v1/a2a/agents/${agent.id}/tasks`, { skill_id: 'run', input: {} }));
  const streams = await Promise.all(tasks.slice(0, streamed).map((task) => server.stream(task.id)));
  await Promise.all(streams.map((stream) => stream.waitFor((frame) => frame.event === 'status' && frame.data.status === 'input_needed', 60_000)));
  const seen = streams.map((stream) => stream.frames.length);
  // Answer every task, 16 requests at a time.
  let next = 0;
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < tasks.length) {
        const task = tasks[next++];
        await server.api('POST', `/v1/a2a/tasks/${task.id}/messages`, { parts: [{ type: 'text', text: 'go' }] });
      }
    }),
  );
  await Promise.all(streams.map((stream) => stream.ended));
  await new Promise((resolve) => setTimeout(resolve, 500)); // the unstreamed runs finish too
  const delays: number[] = [];
  for (const [index, stream] of streams.entries()) {
    const after = stream.frames.slice(seen[index]);
    if (!after.some((frame) => frame.event === 'complete')) throw new Error(`task ${tasks[index].id} did not complete on its stream`);
    const times = await server.eventTimes(tasks[index].id);
    for (const frame of after) delays.push(frame.receivedAt - times.get(frame.id ?? '')!);
  }
  if (delays.some((delay) => !Number.isFinite(delay))) throw new Error('a streamed event is missing from the log');
  return delays;
}

export async function benchA2a(): Promise<BenchRow[]> {
  const server = await startServer();
  try {
    const { ours, base } = await createVsRun(server);
    // The same load (every task answered at once) with a few streams open, then with one per task.
    const few = await fanOut(server, STREAMS, FEW);
    const many = await fanOut(server, STREAMS, STREAMS);
    const goal = (baseline: number) => `≤ 1.1× + 5 ms (${(baseline * 1.1 + 5).toFixed(1)} ms)`;
    return [
      {
        what: `task create → \`running\` status event on its stream vs run start → run seen running (GET every 2 ms; ${GATES} gate stages, median of ${ROUNDS})`,
        ours: median(ours.running),
        baseline: median(base.running),
        unit: 'ms',
        better: 'lower',
        goal: goal(median(base.running)),
      },
      {
        what: `task create → \`complete\` event on its stream vs run start → run seen succeeded (median of ${ROUNDS})`,
        ours: median(ours.complete),
        baseline: median(base.complete),
        unit: 'ms',
        better: 'lower',
        goal: goal(median(base.complete)),
      },
      {
        what: "task create → `running` event vs the run's own started_at − start (server clock, no client in the loop)",
        ours: median(ours.running),
        baseline: median(base.serverRunning),
        unit: 'ms',
        better: 'lower',
      },
      { what: "task create → `complete` event vs the run's own completed_at − start (server clock)", ours: median(ours.complete), baseline: median(base.serverComplete), unit: 'ms', better: 'lower' },
      {
        what: `SSE fan-out: ${STREAMS} tasks answered at once, ${STREAMS} open streams: event commit → client receipt p50 vs ${FEW} open streams (same load)`,
        ours: median(many),
        baseline: median(few),
        unit: 'ms',
        better: 'lower',
        note: `${many.length} vs ${few.length} events`,
      },
      { what: `SSE fan-out: event commit → client receipt p99, ${STREAMS} streams vs ${FEW}`, ours: percentile(many, 99), baseline: percentile(few, 99), unit: 'ms', better: 'lower' },
    ];
  } finally {
    await server.close();
  }
}
