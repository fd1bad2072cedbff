// Session events: ingest throughput through the API (1000-event batches, a few concurrent clients)
// against raw inserts of the same rows into the same table, and replay page latency on a session of
// 1,000,000 events against the raw indexed SELECT — on SQLite and PostgreSQL, in the same run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { buildApp } from '../src/app.js';
import { databaseFile, loadConfig } from '../src/config.js';
import { openStorage, type Storage } from '../src/core/db/database.js';
import { migrateToLatest } from '../src/core/db/migrate.js';
import { newId } from '../src/core/ids.js';
import { createPgDatabase } from '../test/helpers/backends.js';
import { sandboxRecord } from '../test/helpers/sandbox-record.js';
import { latencies } from './api.js';
import type { BenchRow } from './table.js';

const BATCHES = Number(process.env.BENCH_INGEST_BATCHES ?? 200);
const CLIENTS = Number(process.env.BENCH_INGEST_CLIENTS ?? 4);
const REPLAY_EVENTS = Number(process.env.BENCH_REPLAY_EVENTS ?? 1_000_000);
const REPLAY_SAMPLES = Number(process.env.BENCH_REPLAY_SAMPLES ?? 500);
const BATCH_SIZE = 1000;
const SESSIONS = 50;

type Backend = 'sqlite' | 'postgres';

/** A realistic mix: LLM calls, tool calls, commands with output, file operations. */
function batch(sandboxId: string, sessionId: string): object[] {
  const timestamp = new Date().toISOString();
  return Array.from({ length: BATCH_SIZE }, (_, i) => {
    const base = { session_id: sessionId, sandbox_id: sandboxId, timestamp, meta: { agent_type: 'bench', step: i } };
    switch (i % 4) {
      case 0:
        return { ...base, type: 'llm_call', payload: { model: 'gpt-4o-mini', provider: 'openai', tokens_in: 1200 + i, tokens_out: 300 } };
      case 1:
        return { ...base, type: 'tool_call', payload: { name: 'read_file', arguments: { path: `/workspace/src/file${i}.ts` } } };
      case 2:
        return { ...base, type: 'command', payload: { command: `npm test -- --grep case${i}`, exit_code: 0, output: 'ok '.repeat(40) } };
      default:
        return { ...base, type: 'file_op', payload: { operation: 'write', path: `/workspace/out/${i}.json` } };
    }
  });
}

/** The rows the service writes for a batch, for the raw baseline. */
function rawRows(sessionKey: string, events: any[], firstSequence: number): unknown[][] {
  return events.map((e, i) => [sessionKey, firstSequence + i, randomUUID(), e.type, e.timestamp, JSON.stringify(e.payload), JSON.stringify(e.meta), e.type === 'llm_call' ? 0.0003 : null, 0]);
}

interface Bench {
  storage: Storage;
  /** Where the raw baseline connects: the SQLite file or the PostgreSQL URL. */
  sqliteFile: string;
  pgUrl: string | null;
  base: string;
  key: string;
  sandboxId: string;
  close(): Promise<void>;
}

async function start(backend: Backend): Promise<Bench> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-bench-'));
  const pgDatabase = backend === 'postgres' ? await createPgDatabase() : null;
  const config = loadConfig({ PADDOCK_DATA: dataDir, PADDOCK_LOG_LEVEL: 'warn', PADDOCK_RATE_LIMIT_ENTERPRISE: '100000000', ...(pgDatabase ? { DATABASE_URL: pgDatabase.url } : {}) });
  const storage = openStorage({ databaseUrl: config.databaseUrl, sqliteFile: databaseFile(config) });
  await migrateToLatest(storage.db);
  const { app, services } = await buildApp({ config, storage });
  const { api_key: key, account } = await services.accounts.signup({ email: 'bench@example.com', password: 'bench password' }, 'enterprise');
  const sandboxId = newId('sbx');
  const now = new Date().toISOString();
  await storage.db
    .insertInto('sandboxes')
    .values(sandboxRecord(account.id, { id: sandboxId, template: 'minimal', created_at: now, updated_at: now, last_activity_at: now }))
    .execute();
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    storage,
    sqliteFile: databaseFile(config),
    pgUrl: pgDatabase?.url ?? null,
    base,
    key,
    sandboxId,
    async close() {
      await app.close();
      await storage.close();
      await pgDatabase?.drop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** CPU seconds this process used while `work` ran. */
async function cpuSeconds(work: () => Promise<unknown> | unknown): Promise<number> {
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1e6;
}

/** Posts `bodies` from a separate process with `CLIENTS` requests in flight; returns events per second
 * of wall time, and per second of the server's CPU (what the server could do on a core of its own). */
async function postAll(bench: Bench, bodies: string[], clients = CLIENTS): Promise<{ perSecond: number; perCpuSecond: number }> {
  const file = path.join(os.tmpdir(), `paddock-bench-bodies-${process.pid}.ndjson`);
  fs.writeFileSync(file, bodies.join('\n'));
  try {
    let seconds = 0;
    const cpu = await cpuSeconds(async () => {
      const { stdout } = await promisify(execFile)(process.execPath, ['bench/post-load.mjs', `${bench.base}/v1/events/ingest`, bench.key, file, String(clients)], { maxBuffer: 1024 * 1024 });
      seconds = JSON.parse(stdout).seconds;
    });
    const events = bodies.length * BATCH_SIZE;
    return { perSecond: events / seconds, perCpuSecond: events / cpu };
  } finally {
    fs.rmSync(file, { force: true });
  }
}

/** The same rows straight into session_events of a fresh database of the same schema, same concurrency. */
async function rawInsertSqlite(batches: any[][]): Promise<{ perSecond: number; perCpuSecond: number }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-bench-raw-'));
  const storage = openStorage({ databaseUrl: null, sqliteFile: path.join(dir, 'raw.db') });
  await migrateToLatest(storage.db);
  await storage.close();
  const db = new SqliteDatabase(path.join(dir, 'raw.db'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const insert = db.prepare('insert into session_events (session_key, sequence, id, type, timestamp, data, meta, cost_usd, client_id) values (?, ?, ?, ?, ?, ?, ?, ?, ?)');
  const insertBatch = db.transaction((rows: unknown[][]) => {
    for (const row of rows) insert.run(row);
  });
  const sequences = new Map<number, number>();
  const started = performance.now();
  const cpu = await cpuSeconds(() =>
    batches.forEach((events, b) => {
      const session = b % SESSIONS;
      const first = (sequences.get(session) ?? 0) + 1;
      sequences.set(session, first + events.length - 1);
      insertBatch(rawRows(`raw${session}`, events, first));
    }),
  );
  const events = batches.length * BATCH_SIZE;
  const perSecond = events / ((performance.now() - started) / 1000);
  db.close();
  fs.rmSync(dir, { recursive: true, force: true });
  return { perSecond, perCpuSecond: events / cpu };
}

async function rawInsertPostgres(batches: any[][]): Promise<number> {
  const database = await createPgDatabase();
  const pool = new pg.Pool({ connectionString: database.url, max: CLIENTS });
  try {
    const storage = openStorage({ databaseUrl: database.url, sqliteFile: '' });
    await migrateToLatest(storage.db);
    await storage.close();
    const sequences = new Map<number, number>();
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (next < batches.length) {
          const b = next++;
          const session = b % SESSIONS;
          const first = (sequences.get(session) ?? 0) + 1;
          sequences.set(session, first + batches[b].length - 1);
          const rows = rawRows(`raw${session}`, batches[b], first);
          const columns = rows[0].map((_, c) => rows.map((row) => row[c]));
          await pool.query(
            'insert into session_events (session_key, sequence, id, type, timestamp, data, meta, cost_usd, client_id) select * from unnest($1::text[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::float8[], $9::int[])',
            columns,
          );
        }
      }),
    );
    return (batches.length * BATCH_SIZE) / ((performance.now() - started) / 1000);
  } finally {
    await pool.end();
    await database.drop();
  }
}

async function ingestThroughput(backend: Backend): Promise<BenchRow[]> {
  const bench = await start(backend);
  try {
    const batches = Array.from({ length: BATCHES }, (_, b) => batch(bench.sandboxId, `session-${b % SESSIONS}`));
    const bodies = batches.map((events) => JSON.stringify({ events }));
    await postAll(bench, bodies.slice(0, 10)); // warm-up
    const ours = await postAll(bench, bodies);
    const what = `ingest, 1000-event batches, ${CLIENTS} clients (${backend})`;
    if (backend === 'postgres') {
      const baseline = await rawInsertPostgres(batches);
      return [{ what: `${what} vs raw inserts of the same rows`, ours: ours.perSecond, baseline, unit: 'events/s', better: 'higher', note: 'pg unnest insert per batch' }];
    }
    const baseline = await rawInsertSqlite(batches);
    return [
      {
        what: `${what} vs raw inserts of the same rows`,
        ours: ours.perSecond,
        baseline: baseline.perSecond,
        unit: 'events/s',
        better: 'higher',
        goal: '≥ 50,000 events/s',
        note: 'better-sqlite3 prepared insert, one transaction per batch',
      },
      {
        what: `${what}, events per second of server CPU vs raw inserts per second of CPU`,
        ours: ours.perCpuSecond,
        baseline: baseline.perCpuSecond,
        unit: 'events/s',
        better: 'higher',
        goal: '≥ 50,000 events/s',
      },
    ];
  } finally {
    await bench.close();
  }
}

async function replayLatency(backend: Backend): Promise<BenchRow[]> {
  const bench = await start(backend);
  try {
    const sessionId = 'million';
    const batches = REPLAY_EVENTS / BATCH_SIZE;
    const bodies = Array.from({ length: batches }, () => JSON.stringify({ events: batch(bench.sandboxId, sessionId) }));
    // One session: batches serialize on its row, so one client is as fast as several.
    await postAll(bench, bodies, 1);
    const session = await bench.storage.db.selectFrom('sessions').select(['key', 'event_count']).where('id', '=', sessionId).executeTakeFirstOrThrow();
    if (session.event_count !== REPLAY_EVENTS) throw new Error(`session holds ${session.event_count} events`);

    const raw = await rawSelect(backend, bench, session.key);
    const rows: BenchRow[] = [];
    const positions: [string, number][] = [
      ['start', 0],
      ['middle', REPLAY_EVENTS / 2],
      ['end', REPLAY_EVENTS - 100],
    ];
    for (const [where, afterSeq] of positions) {
      const url = `${bench.base}/v1/sessions/${sessionId}/replay?after_seq=${afterSeq}&limit=100`;
      await latencies(url, { authorization: `Bearer ${bench.key}` }, 50);
      const ours = await latencies(url, { authorization: `Bearer ${bench.key}` }, REPLAY_SAMPLES);
      const baseline = await raw.p50(afterSeq);
      rows.push({
        what: `replay page of 100 at the ${where} of a ${REPLAY_EVENTS.toLocaleString('en')}-event session, p50 (${backend}) vs the raw indexed SELECT`,
        ours: ours.p50,
        baseline,
        unit: 'ms',
        better: 'lower',
        goal: '≤ 5 ms',
      });
    }
    await raw.close();
    // Every authenticated request pays for the credential check and the rate-limit counter (a row
    // upsert on PostgreSQL); the account endpoint shows that floor in the same run.
    const auth = { authorization: `Bearer ${bench.key}` };
    const middle = `${bench.base}/v1/sessions/${sessionId}/replay?after_seq=${REPLAY_EVENTS / 2}&limit=100`;
    await latencies(`${bench.base}/v1/account`, auth, 50);
    const floor = await latencies(`${bench.base}/v1/account`, auth, REPLAY_SAMPLES);
    const again = await latencies(middle, auth, REPLAY_SAMPLES);
    rows.push({
      what: `replay page of 100 at the middle, p50 (${backend}) vs GET /v1/account p50 (the per-request floor: auth and rate limit)`,
      ours: again.p50,
      baseline: floor.p50,
      unit: 'ms',
      better: 'lower',
    });
    return rows;
  } finally {
    await bench.close();
  }
}

const RAW_PAGE = 'select * from session_events where session_key = $1 and sequence > $2 order by sequence limit 101';

/** The page's SELECT run directly on a separate connection, timed the same way (sequential, p50). */
async function rawSelect(backend: Backend, bench: Bench, sessionKey: string): Promise<{ p50(afterSeq: number): Promise<number>; close(): Promise<void> }> {
  const median = (samples: number[]) => samples.sort((a, b) => a - b)[Math.floor(samples.length / 2)];
  if (backend === 'sqlite') {
    const db = new SqliteDatabase(bench.sqliteFile, { readonly: true });
    const page = db.prepare(RAW_PAGE.replace('$1', '?').replace('$2', '?'));
    return {
      async p50(afterSeq) {
        const samples: number[] = [];
        for (let i = 0; i < REPLAY_SAMPLES; i++) {
          const started = performance.now();
          page.all(sessionKey, afterSeq);
          samples.push(performance.now() - started);
        }
        return median(samples);
      },
      async close() {
        db.close();
      },
    };
  }
  const client = new pg.Client({ connectionString: bench.pgUrl! });
  await client.connect();
  return {
    async p50(afterSeq) {
      const samples: number[] = [];
      for (let i = 0; i < REPLAY_SAMPLES; i++) {
        const started = performance.now();
        await client.query({ name: 'raw_page', text: RAW_PAGE, values: [sessionKey, afterSeq] });
        samples.push(performance.now() - started);
      }
      return median(samples);
    },
    close: () => client.end(),
  };
}

export async function benchIngest(): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  for (const backend of ['sqlite', 'postgres'] as const) rows.push(...(await ingestThroughput(backend)));
  for (const backend of ['sqlite', 'postgres'] as const) rows.push(...(await replayLatency(backend)));
  return rows;
}
