// Agent delegation (A2A): (a) task create → first `running` status event and → `complete` received on
// the task's SSE stream, against starting the same pipeline's run directly and reading its started /
// completed times from the run (server timestamps, same process clock), interleaved in the same run;
// (b) SSE fan-out: 200 tasks waiting for input, one open stream each on one server, all answered at
// once; the delay from each event's commit (its created_at, stamped in the committing transaction) to
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

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.ceil((p / 100) * values.length) - 1)];

async function startServer() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-bench-a2a-'));
  const config = loadConfig({ PADDOCK_DATA: dataDir, PADDOCK_LOG_LEVEL: 'warn', PADDOCK_RATE_LIMIT_ENTERPRISE: '100000000', PADDOCK_WARM_POOL: '0' });
  const storage = openStorage({ databaseUrl: null, sqliteFile: databaseFile(config) });
  await migrateToLatest(storage.db);
  const { app, services } = await buildApp({ config, storage });
  const { api_key: apiKey } = await services.accounts.signup({ email: 'bench@example.com', password: 'bench password' }, 'enterprise');
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const api = async (method: string, route: string, body?: object): Promise<any> => {
    const response = await fetch(base + route, { method, headers: { authorization: `Bearer ${apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`${method} ${route}: ${response.status} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  const stream = (taskId: string) => openSse(`${base}/v1/a2a/tasks/${taskId}/stream`, { token: apiKey });
  return {
    api,
    stream,
    /** When each event of the task's log was stamped, in its committing transaction (ms since epoch), by sequence. */
    async eventTimes(taskId: string): Promise<Map<string, number>> {
      const rows = await storage.db.selectFrom('a2a_task_events').select(['sequence', 'created_at']).where('task_id', '=', taskId).execute();
      return new Map(rows.map((row) => [String(row.sequence), Date.parse(row.created_at)]));
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
  const base = { running: [] as number[], complete: [] as number[] };
  for (let round = 0; round < ROUNDS + 2; round++) {
    const measured = round >= 2; // two warm-up rounds
    // Baseline: the run started directly; its own server timestamps (same clock as Date.now here).
    const runStart = Date.now();
    const run = await server.api('POST', `/v1/pipelines/${pipeline.id}/runs`, { input: {} });
    let view: any;
    do {
      await new Promise((resolve) => setTimeout(resolve, 20));
      view = await server.api('GET', `/v1/pipelines/${pipeline.id}/runs/${run.id}`);
    } while (!['succeeded', 'failed', 'canceled'].includes(view.status));
    if (view.status !== 'succeeded') throw new Error(`baseline run ${view.status}`);
    // Ours: the task, followed on its stream as a client would.
    const taskStart = Date.now();
    const task = await server.api('POST', `/v1/a2a/agents/${agent.id}/tasks`, { skill_id: 'run', input: {} });
    const stream = await server.stream(task.id);
    const running = await stream.waitFor((frame) => frame.event === 'status' && frame.data.status === 'running');
    const complete = await stream.waitFor((frame) => frame.event === 'complete');
    await stream.ended;
    if (complete.data.status !== 'completed') throw new Error(`bench task ${complete.data.status}`);
    if (!measured) continue;
    base.running.push(Date.parse(view.started_at) - runStart);
    base.complete.push(Date.parse(view.completed_at) - runStart);
    ours.running.push(running.receivedAt - taskStart);
    ours.complete.push(complete.receivedAt - taskStart);
  }
  return { ours, base };
}

/** Commit → receipt of every event after the answer, over `count` tasks waiting for input, each with its stream open. */
async function fanOut(server: Server, count: number): Promise<number[]> {
  const { agent } = await agentOver(server, `bench-fanout-${count}`, [{ name: 'ask', type: 'await_approval', config: { message: 'go?', channels: ['dashboard'] } }, { name: 'after', type: 'gate', config: { expression: 'true' }, depends_on: ['ask'] }]);
  const tasks: any[] = [];
  for (let i = 0; i < count; i++) tasks.push(await server.api('POST', `/v1/a2a/agents/${agent.id}/tasks`, { skill_id: 'run', input: {} }));
  const streams = await Promise.all(tasks.map((task) => server.stream(task.id)));
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
    const single = await fanOut(server, 1);
    const many = await fanOut(server, STREAMS);
    const goal = (baseline: number) => `≤ 1.1× + 5 ms (${(baseline * 1.1 + 5).toFixed(1)} ms)`;
    return [
      { what: `task create → \`running\` status event on its stream vs run start → run started_at (${GATES} gate stages, median of ${ROUNDS})`, ours: median(ours.running), baseline: median(base.running), unit: 'ms', better: 'lower', goal: goal(median(base.running)) },
      { what: `task create → \`complete\` event on its stream vs run start → run completed_at (median of ${ROUNDS})`, ours: median(ours.complete), baseline: median(base.complete), unit: 'ms', better: 'lower', goal: goal(median(base.complete)) },
      { what: `SSE fan-out: ${STREAMS} open streams, event commit → client receipt p50 vs the same with 1 stream`, ours: median(many), baseline: median(single), unit: 'ms', better: 'lower', note: `${many.length} events` },
      { what: `SSE fan-out: ${STREAMS} open streams, event commit → client receipt p99 vs the same with 1 stream`, ours: percentile(many, 99), baseline: percentile(single, 99), unit: 'ms', better: 'lower' },
    ];
  } finally {
    await server.close();
  }
}
