// Upgrading a database that already holds sessions to run sessions (0011): every session, event and
// trust finding survives (on SQLite the sessions table is rebuilt with foreign keys off, so nothing
// cascades), the new owner check holds, and a run from before keeps working with no session; on
// SQLite and PostgreSQL.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Insertable, Kysely } from 'kysely';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseFile, loadConfig } from '../../src/config.js';
import type { SessionsTable } from '../../src/core/db/schema.js';
import { openStorage, type Storage } from '../../src/core/db/database.js';
import { migrateTo } from '../../src/core/db/migrate.js';
import { BACKENDS, createPgDatabase } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { seedSandbox } from '../helpers/sessions.js';

const NOW = new Date().toISOString();

async function seedPreviousSchema(db: Kysely<any>) {
  await db
    .insertInto('accounts')
    .values({ id: 'acc_old', email: 'old@example.com', email_normalized: 'old@example.com', name: null, password_hash: 'x', plan: 'free', created_at: NOW, updated_at: NOW })
    .execute();
  const sandboxId = await seedSandbox({ storage: { db } } as unknown as TestApp, 'acc_old');
  const counts = { event_count: 2, llm_call_count: 1, tool_call_count: 0, file_op_count: 0, command_count: 1, network_count: 0, error_count: 0, lifecycle_count: 0 };
  await db
    .insertInto('sessions')
    .values({
      key: 'sek_old',
      id: 'agent-1',
      account_id: 'acc_old',
      sandbox_id: sandboxId,
      status: 'completed',
      agent_type: 'coder',
      model: 'gpt-4o',
      tokens_in: 10,
      tokens_out: 5,
      llm_cost_usd: 0.25,
      compute_cost_usd: 0,
      trust_score: 60,
      trust_alerts_raised: 1,
      trust_alert_pending: 0,
      ...counts,
      started_at: NOW,
      last_event_at: NOW,
      ended_at: NOW,
      last_activity_at: NOW,
      created_at: NOW,
      updated_at: NOW,
    })
    .execute();
  await db
    .insertInto('session_events')
    .values([
      {
        session_key: 'sek_old',
        sequence: 1,
        id: '00000000-0000-4000-8000-000000000001',
        type: 'llm_call',
        timestamp: NOW,
        data: '{"model":"gpt-4o","cost_usd":0.25}',
        meta: null,
        cost_usd: 0.25,
        client_id: 1,
      },
      { session_key: 'sek_old', sequence: 2, id: '00000000-0000-4000-8000-000000000002', type: 'command', timestamp: NOW, data: '{"command":"rm -rf /"}', meta: null, cost_usd: null, client_id: 0 },
    ])
    .execute();
  await db
    .insertInto('session_findings')
    .values({ session_key: 'sek_old', sequence: 2, rule: 'destructive_delete', severity: 'critical', weight: 40, penalty: 40, evidence: 'rm -rf /', created_at: NOW })
    .execute();
  await db.insertInto('pipelines').values({ id: 'pip_old', account_id: 'acc_old', name: 'old', status: 'active', version: 1, created_at: NOW, updated_at: NOW }).execute();
  await db
    .insertInto('pipeline_versions')
    .values({ pipeline_id: 'pip_old', version: 1, description: '', stages: '[{"name":"a","type":"gate","config":{"expression":"true"}}]', defaults: '{}', created_at: NOW })
    .execute();
  await db
    .insertInto('pipeline_runs')
    .values({
      id: 'run_old',
      account_id: 'acc_old',
      pipeline_id: 'pip_old',
      pipeline_name: 'old',
      version: 1,
      status: 'succeeded',
      trigger: 'api',
      input: '{"env":{},"repo":null,"branch":null}',
      error: null,
      event_count: 0,
      created_at: NOW,
      started_at: NOW,
      completed_at: NOW,
      updated_at: NOW,
    })
    .execute();
  return sandboxId;
}

describe.each(BACKENDS)('run sessions migration on %s', (backend) => {
  let storage: Storage;
  let t: TestApp | undefined;
  let sandboxId: string;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-test-'));
  let databaseUrl: string | null = null;
  let applied: string[];

  beforeAll(async () => {
    databaseUrl = backend === 'postgres' ? (await createPgDatabase()).url : null;
    storage = openStorage({ databaseUrl, sqliteFile: databaseFile(loadConfig({ PADDOCK_DATA: dataDir })) });
    await migrateTo(storage.db, '0010_sandbox_hosts');
    sandboxId = await seedPreviousSchema(storage.db);
    applied = await migrateTo(storage.db, null);
  });
  afterAll(async () => {
    // Once the app runs on the database, closing it also drops the test database and the data dir.
    if (t) await t.close();
    else {
      await storage?.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('keeps every session, event and finding', async () => {
    // Later migrations follow it.
    expect(applied[0]).toBe('0011_run_sessions');
    const db = storage.db;
    expect(await db.selectFrom('sessions').selectAll().execute()).toEqual([
      expect.objectContaining({
        key: 'sek_old',
        id: 'agent-1',
        sandbox_id: sandboxId,
        pipeline_run_id: null,
        status: 'completed',
        agent_type: 'coder',
        trust_score: 60,
        trust_alerts_raised: 1,
        event_count: 2,
        llm_call_count: 1,
        command_count: 1,
        llm_cost_usd: 0.25,
      }),
    ]);
    expect((await db.selectFrom('session_events').select(['sequence', 'type']).orderBy('sequence').execute()).map((e) => [e.sequence, e.type])).toEqual([
      [1, 'llm_call'],
      [2, 'command'],
    ]);
    expect(await db.selectFrom('session_findings').select(['session_key', 'rule']).execute()).toEqual([{ session_key: 'sek_old', rule: 'destructive_delete' }]);
    expect((await db.selectFrom('pipeline_runs').select('session_id').where('id', '=', 'run_old').executeTakeFirstOrThrow()).session_id).toBeNull();
    if (backend === 'sqlite') expect((await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db)).rows[0].foreign_keys).toBe(1);
  });

  it('enforces exactly one owner, one session per run, and the cascades', async () => {
    const db = storage.db;
    const row = (key: string, owner: { sandbox_id: string | null; pipeline_run_id: string | null }): Insertable<SessionsTable> => ({
      key,
      id: key,
      account_id: 'acc_old',
      ...owner,
      status: 'active',
      agent_type: null,
      model: null,
      tokens_in: 0,
      tokens_out: 0,
      llm_cost_usd: 0,
      compute_cost_usd: 0,
      trust_score: 100,
      trust_alerts_raised: 0,
      trust_alert_pending: 0,
      event_count: 0,
      llm_call_count: 0,
      tool_call_count: 0,
      file_op_count: 0,
      command_count: 0,
      network_count: 0,
      error_count: 0,
      lifecycle_count: 0,
      started_at: null,
      last_event_at: null,
      ended_at: null,
      last_activity_at: NOW,
      created_at: NOW,
      updated_at: NOW,
    });
    await expect(
      db
        .insertInto('sessions')
        .values(row('sek_none', { sandbox_id: null, pipeline_run_id: null }))
        .execute(),
    ).rejects.toThrow(/sessions_owner_check|CHECK constraint/);
    await expect(
      db
        .insertInto('sessions')
        .values(row('sek_both', { sandbox_id: sandboxId, pipeline_run_id: 'run_old' }))
        .execute(),
    ).rejects.toThrow(/sessions_owner_check|CHECK constraint/);
    await expect(
      db
        .insertInto('sessions')
        .values(row('sek_ghost', { sandbox_id: null, pipeline_run_id: 'run_ghost' }))
        .execute(),
    ).rejects.toThrow(/foreign key/i);
    await db
      .insertInto('sessions')
      .values(row('sek_run', { sandbox_id: null, pipeline_run_id: 'run_old' }))
      .execute();
    await expect(
      db
        .insertInto('sessions')
        .values(row('sek_run2', { sandbox_id: null, pipeline_run_id: 'run_old' }))
        .execute(),
    ).rejects.toThrow(/unique/i);
    await db.deleteFrom('pipeline_runs').where('id', '=', 'run_old').execute();
    expect(await db.selectFrom('sessions').select('key').where('key', '=', 'sek_run').execute()).toEqual([]);
  });

  it('serves the old session through the app started on the upgraded database', async () => {
    await storage.close();
    storage = undefined as never;
    t = await startApp(backend, {}, { reuse: { dataDir, databaseUrl } });
    const view = await t.services.sessions.view('acc_old', 'agent-1');
    expect(view).toMatchObject({ id: 'agent-1', sandbox_id: sandboxId, pipeline_run_id: null, trust_score: 60, llm_cost_usd: 0.25, event_count: 2 });
    const page = JSON.parse(await t.services.sessions.replay('acc_old', 'agent-1', { afterSeq: 0, limit: 10 }));
    expect(page.events.map((e: any) => e.type)).toEqual(['llm_call', 'command']);
  });
});
