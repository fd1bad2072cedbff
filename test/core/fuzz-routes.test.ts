// Property-based fuzzing of every route in the server's own /openapi.json (see fuzz/requests.ts for what
// is generated), against a real server with the runc runtime so the sandbox routes exist, on SQLite and
// PostgreSQL. A fixed seed makes every run send the same requests; `scripts/fuzz-routes.sh SEED COUNT`
// runs longer with any seed. Requests carry a valid key (mostly) against ids that do not exist (or, for
// reads and refused bodies, a pipeline, scenario, suite and secret that do), and bodies the route's
// schema refuses. The properties: no answer >= 500, no dropped connection, every
// 4xx a JSON error body, not one row stored in any table, and the server still healthy afterwards.
import http from 'node:http';
import fc from 'fast-check';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { bodyOracle } from './fuzz/body-oracle.js';
import { operationsOf, type Operation } from './fuzz/operations.js';
import { malformedRequest, type FuzzRequest } from './fuzz/requests.js';
import { problemWith, send } from './fuzz/send.js';

const SEED = Number(process.env.PADDOCK_FUZZ_SEED ?? 16_2026);
/** Per backend; the CI run sends at least 2,000 on each. */
const RUNS = Number(process.env.PADDOCK_FUZZ_RUNS ?? 2000);
const CONCURRENCY = 4;
/** Rate-limit counters and migration bookkeeping change on any request; everything else must not. */
const UNCOUNTED_TABLES = new Set(['paddock_rate_limits', 'kysely_migration', 'kysely_migration_lock']);

async function rowCounts(t: TestApp): Promise<Record<string, number>> {
  const tables = (await t.storage.db.introspection.getTables()).map((table) => table.name).filter((name) => !UNCOUNTED_TABLES.has(name));
  const counts: Record<string, number> = {};
  for (const name of tables.sort()) {
    const row = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(name)}`.execute(t.storage.db);
    counts[name] = Number(row.rows[0].n);
  }
  return counts;
}

/** A pipeline, a scenario, a suite and a secret that exist, so reads of them and refused writes to them run deeper than a 404. */
async function existingResources(t: TestApp, key: string): Promise<Record<string, string>> {
  const create = async (method: string, path: string, body: unknown) => {
    const reply = await t.request(method, path, { token: key, body });
    expect(reply.status, reply.text).toBeLessThan(300);
    return reply.body;
  };
  const pipeline = await create('POST', '/v1/pipelines', { name: 'fuzzed', stages: [{ name: 'build', type: 'command', command: 'true', template: 'minimal' }] });
  const scenario = await create('POST', '/v1/evals/scenarios', { name: 'fuzzed', template: 'minimal', command: 'true', checks: [{ type: 'exit_code', equals: 0 }] });
  const suite = await create('POST', '/v1/evals/suites', { name: 'fuzzed', scenario_ids: [scenario.id] });
  await create('PUT', '/v1/secrets/FUZZED', { value: 'not for fuzzers' });
  return { '/v1/pipelines/': pipeline.id, '/v1/evals/scenarios/': scenario.id, '/v1/evals/suites/': suite.id, '/v1/secrets/': 'FUZZED' };
}

/** RUNS requests, round-robin over the operations so every one is attacked, each stream seeded from SEED. */
function generate(operations: Operation[], apiKey: string, existing: Record<string, string>): FuzzRequest[] {
  const accepts = bodyOracle(operations);
  const perOperation = Math.ceil(RUNS / operations.length);
  const streams = operations.map((operation, index) => fc.sample(malformedRequest(operation, { apiKey, accepts, existing }), { seed: SEED + index, numRuns: perOperation }));
  const requests: FuzzRequest[] = [];
  for (let round = 0; round < perOperation; round++) for (const stream of streams) requests.push(stream[round]);
  return requests;
}

function summary(request: FuzzRequest): string {
  const auth = request.headers.authorization;
  const target = request.target.length > 160 ? `${request.target.slice(0, 160)}… (${request.target.length} chars)` : request.target;
  return `${request.operation} as ${request.method} ${JSON.stringify(target)} [${request.mutations.join('; ')}]${auth === undefined ? ' (no authorization)' : ''}`;
}

describe.each(BACKENDS)('fuzzing every route on runc with %s', (backend) => {
  let t: TestApp;
  let key: string;
  const agent = new http.Agent({ keepAlive: false });

  beforeAll(async () => {
    t = await startApp(backend, {}, { runtime: 'runc' });
    key = (await t.signup()).key;
  });
  afterAll(async () => {
    agent.destroy();
    await t?.close();
  });

  it(
    `answers ${RUNS} malformed requests with 4xx JSON errors, stores nothing and stays up (seed ${SEED})`,
    async () => {
      const document = await t.request('GET', '/openapi.json');
      const operations = operationsOf(document.body);
      expect(operations.map((op) => `${op.method} ${op.path}`)).toEqual(
        expect.arrayContaining(['POST /v1/sandboxes', 'PUT /v1/sandboxes/{id}/files/content', 'POST /v1/pipelines', 'POST /v1/events/ingest']),
      );
      // Reads that create defaults on first use (alert rules, notification config) do so before counting.
      for (const op of operations.filter((op) => op.method === 'GET' && op.pathParams.length === 0)) await t.request('GET', op.path, { token: key });
      const existing = await existingResources(t, key);
      const before = await rowCounts(t);

      const requests = generate(operations, key, existing);
      expect(requests.length).toBeGreaterThanOrEqual(RUNS);
      const failures: string[] = [];
      const statuses = new Map<number, number>();
      let next = 0;
      const worker = async () => {
        while (next < requests.length) {
          const index = next++;
          const request = requests[index];
          try {
            const answer = await send(t.url, agent, request);
            statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1);
            const problem = problemWith(request, answer);
            if (problem) failures.push(`#${index} ${summary(request)}: ${problem}`);
          } catch (error) {
            failures.push(`#${index} ${summary(request)}: no answer (${(error as Error).message})`);
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      console.info(`${backend}, seed ${SEED}: ${requests.length} requests, statuses ${JSON.stringify(Object.fromEntries([...statuses].sort(([a], [b]) => a - b)))}`);

      expect(failures.slice(0, 40), `${failures.length} of ${requests.length} requests misbehaved (seed ${SEED})`).toEqual([]);
      expect((await t.request('GET', '/healthz')).status).toBe(200);
      expect((await t.request('GET', '/v1/account', { token: key })).status).toBe(200);
      expect(await rowCounts(t)).toEqual(before);
      // The mix reached the handlers, not only the validation: ids that do not exist answer 404.
      expect(statuses.get(404) ?? 0).toBeGreaterThan(RUNS / 20);
      expect(statuses.get(400) ?? 0).toBeGreaterThan(RUNS / 4);
    },
    120_000 + RUNS * 60,
  );
});
