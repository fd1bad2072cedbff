// What recording a run's lifecycle in its session costs each transition: one pipeline event written the
// way the engine writes it (run locked, timeline row, session event with the session's totals, in one
// transaction) vs the same transaction with the timeline row alone, on SQLite and PostgreSQL, same run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { databaseFile, loadConfig } from '../src/config.js';
import { openStorage } from '../src/core/db/database.js';
import { migrateToLatest } from '../src/core/db/migrate.js';
import * as runs from '../src/pipelines/runs/store.js';
import { createPgDatabase } from '../test/helpers/backends.js';
import type { BenchRow } from './table.js';

const ROUNDS = Number(process.env.BENCH_RUN_SESSION_ROUNDS ?? 15);
const EVENTS_PER_ROUND = Number(process.env.BENCH_RUN_SESSION_EVENTS ?? 100);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function measure(backend: 'sqlite' | 'postgres'): Promise<BenchRow> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-bench-'));
  const pg = backend === 'postgres' ? await createPgDatabase() : null;
  const config = loadConfig({ PADDOCK_DATA: dataDir, PADDOCK_LOG_LEVEL: 'warn', ...(pg ? { DATABASE_URL: pg.url } : {}) });
  const storage = openStorage({ databaseUrl: config.databaseUrl, sqliteFile: databaseFile(config) });
  await migrateToLatest(storage.db);
  const { app, services } = await buildApp({ config, storage });
  try {
    const { api_key: key } = await services.accounts.signup({ email: 'bench@example.com', password: 'bench password' }, 'enterprise');
    const headers = { authorization: `Bearer ${key}` };
    // A run parked at an approval: nothing else writes to it while the events are measured.
    const pipeline = (await app.inject({ method: 'POST', url: '/v1/pipelines', headers, payload: { name: 'bench', stages: [{ name: 'hold', type: 'await_approval' }] } })).json();
    const run = (await app.inject({ method: 'POST', url: `/v1/pipelines/${pipeline.id}/runs`, headers, payload: {} })).json();
    const data = { type: 'command', attempt: 1, exit_code: 0, duration_ms: 120, cost_usd: 0 };

    const writeEvents = async (withSession: boolean) => {
      const started = performance.now();
      for (let i = 0; i < EVENTS_PER_ROUND; i++) {
        await storage.db.transaction().execute(async (trx) => {
          const row = (await runs.lockRun(trx, storage.sqlDialect, run.id))!;
          const at = new Date().toISOString();
          await runs.appendEvent(trx, row, 'pipeline.stage.completed', 'build', data, at);
          if (withSession) await services.sessions.recordRunEvent(trx, row.id, { type: 'pipeline.stage.completed', stage: 'build', data, at });
        });
      }
      return (performance.now() - started) / EVENTS_PER_ROUND;
    };
    const ours: number[] = [];
    const baseline: number[] = [];
    await writeEvents(true);
    await writeEvents(false);
    for (let round = 0; round < ROUNDS; round++) {
      ours.push(await writeEvents(true));
      baseline.push(await writeEvents(false));
    }
    return {
      what: `one pipeline event, ${backend}: timeline row + run session event vs timeline row alone (run locked, one transaction; median of ${ROUNDS}×${EVENTS_PER_ROUND})`,
      ours: median(ours),
      baseline: median(baseline),
      unit: 'ms',
      better: 'lower',
    };
  } finally {
    await app.close();
    await storage.close();
    await pg?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function benchRunSessions(): Promise<BenchRow[]> {
  return [await measure('sqlite'), await measure('postgres')];
}
