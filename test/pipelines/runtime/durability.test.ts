// The durability promise with real processes: a server killed with SIGKILL during a running stage
// resumes the run after restart (completed stages not run again, the interrupted stage attempted
// again, paused runs still paused, state intact), and two servers on one PostgreSQL share a wide DAG
// without any stage attempt executed twice.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeDataDir, TEST_TEMPLATES_DIR } from '../../helpers/app.js';
import { createPgDatabase } from '../../helpers/backends.js';
import { waitFor } from '../../helpers/wait-for.js';

interface Server {
  child: ChildProcess;
  url: string;
  workerId: string;
}

const children: ChildProcess[] = [];
/** Every data dir a server ran on, with what it needs to clean it: its runtime and network profile. */
const hosts = new Map<string, { runtime: 'runc' | 'gvisor'; networkProfile: number }>();
const cleanups: (() => Promise<void>)[] = [];

function freshDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-durable-'));
  fs.symlinkSync(TEST_TEMPLATES_DIR, path.join(dir, 'templates'));
  return dir;
}

function startServer(backend: string, dataDir: string, databaseUrl: string | null, profile: number, runtime = 'runc'): Promise<Server> {
  hosts.set(dataDir, { runtime: runtime as 'runc' | 'gvisor', networkProfile: profile });
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('test/helpers/pipeline-server-process.ts'), backend, dataDir, databaseUrl ?? '-', String(profile), runtime], {
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${stderr}`)), 90_000);
    child.stdout!.on('data', (d) => {
      stdout += d;
      const line = stdout.split('\n').find((l) => l.startsWith('{'));
      if (line) {
        clearTimeout(timer);
        resolve({ child, ...JSON.parse(line) });
      }
    });
    child.on('exit', (code) => reject(new Error(`server exited with ${code}: ${stderr}`)));
  });
}

async function kill9(server: Server): Promise<void> {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGKILL');
  await exited;
}

async function stopGracefully(server: Server): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGTERM');
  await exited;
}

function client(url: string, key?: string) {
  return async (method: string, route: string, body?: unknown) => {
    const response = await fetch(url + route, {
      method,
      headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null };
  };
}

afterEach(async () => {
  const exited = children.splice(0).map((child) => {
    if (child.exitCode !== null || child.signalCode) return Promise.resolve();
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    return gone;
  });
  await Promise.all(exited);
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  // A server killed for good leaves its sandboxes running; nothing of a test may outlive it.
  for (const [dataDir, host] of hosts) await removeDataDir(dataDir, host);
  hosts.clear();
});

describe.each(['runc', 'gvisor'])('restart after kill -9 with %s', (runtime) => {
  it('resumes after kill -9 during a running stage: done stages not rerun, the lost one attempted again, paused runs stay paused', async () => {
    const dataDir = freshDataDir();
    let server = await startServer('sqlite', dataDir, null, 1, runtime);
    const signup = await client(server.url)('POST', '/signup', { email: `durable-${Date.now()}@example.com`, password: 'a-long-password-1' });
    const api = () => client(server.url, signup.body.api_key);
    const pipeline = (
      await api()('POST', '/v1/pipelines', {
        name: 'durable',
        stages: [
          { name: 'first', type: 'command', command: 'echo first', template: 'python-311' },
          { name: 'long', type: 'command', command: 'sleep 6; echo survived', template: 'python-311', depends_on: ['first'] },
          { name: 'last', type: 'command', command: 'true', template: 'python-311', depends_on: ['long'] },
        ],
      })
    ).body;
    const held = (await api()('POST', '/v1/pipelines', { name: 'held', stages: [{ name: 'approve-me', type: 'await_approval' }] })).body;
    const paused = (await api()('POST', `/v1/pipelines/${held.id}/runs`, {})).body;
    await waitFor('the held run to pause', async () => (await api()('GET', `/v1/pipelines/${held.id}/runs/${paused.id}`)).body.status === 'paused', 20_000, 200);
    await api()('PUT', `/v1/pipelines/${held.id}/runs/${paused.id}/state/kept`, { value: { n: 1 } });

    const run = (await api()('POST', `/v1/pipelines/${pipeline.id}/runs`, {})).body;
    await waitFor(
      'the long stage to run',
      async () => (await api()('GET', `/v1/pipelines/${pipeline.id}/runs/${run.id}`)).body.stages.find((s: any) => s.name === 'long').status === 'running',
      60_000,
      200,
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));
    await kill9(server);

    const killedAt = Date.now();
    server = await startServer('sqlite', dataDir, null, 1, runtime);
    const readyAt = Date.now();
    const done = await waitFor(
      'the run to finish after the restart',
      async () => {
        const current = (await api()('GET', `/v1/pipelines/${pipeline.id}/runs/${run.id}`)).body;
        return ['succeeded', 'failed', 'canceled'].includes(current.status) && current;
      },
      90_000,
      200,
    );
    expect(done.status).toBe('succeeded');
    const stage = (name: string) => done.stages.find((s: any) => s.name === name);
    expect(stage('first').attempt).toBe(1);
    expect(stage('long').attempt).toBe(2);
    expect(stage('last').attempt).toBe(1);
    const longLogs = (await api()('GET', `/v1/pipelines/${pipeline.id}/runs/${run.id}/stages/long/logs`)).body;
    expect(longLogs.attempts.map((a: any) => a.status)).toEqual(['lost', 'succeeded']);
    expect(longLogs.attempts[1].stdout).toBe('survived\n');
    // Reclaimed within seconds of the new server being up: the dead lease (3 s) expires, the next poll takes it.
    expect(Date.parse(longLogs.attempts[1].started_at)).toBeGreaterThan(killedAt);
    expect(Date.parse(longLogs.attempts[1].started_at) - readyAt).toBeLessThan(5_000);
    const firstLogs = (await api()('GET', `/v1/pipelines/${pipeline.id}/runs/${run.id}/stages/first/logs`)).body;
    expect(firstLogs.attempts).toHaveLength(1);
    const events = (await api()('GET', `/v1/pipelines/${pipeline.id}/runs/${run.id}/events?limit=1000`)).body.events.map((e: any) => e.type);
    expect(events).toContain('pipeline.stage.lease_expired');
    // The run's session holds the same transitions in the same order: each was written with its timeline row.
    const replay = (await api()('GET', `/v1/sessions/${done.session_id}/replay?limit=1000`)).body.events;
    expect(replay.map((e: any) => e.data.event)).toEqual(events);
    expect(replay.map((e: any) => e.sequence)).toEqual(replay.map((_: unknown, i: number) => i + 1));

    const stillPaused = (await api()('GET', `/v1/pipelines/${held.id}/runs/${paused.id}`)).body;
    expect(stillPaused.status).toBe('paused');
    expect((await api()('GET', `/v1/pipelines/${held.id}/runs/${paused.id}/state/kept`)).body.value).toBe('{"n":1}');
    // The lost attempt's sandbox was destroyed by the attempt that replaced it; the others after their
    // stage (teardown runs after the outcome is recorded, so give it a moment).
    const live = async () => ((await api()('GET', '/v1/sandboxes?include_destroyed=true&limit=100')).body as any[]).filter((s) => s.status !== 'destroyed');
    await waitFor('every stage sandbox to be destroyed', async () => (await live()).length === 0, 20_000, 200).catch(() => null);
    expect(await live()).toEqual([]);
    await stopGracefully(server);
  });
});

describe('pipeline durability with several server processes on PostgreSQL', () => {
  it('two servers on one PostgreSQL run a wide DAG together with no stage attempt executed twice', async () => {
    const database = await createPgDatabase();
    cleanups.push(() => database.drop());
    const one = await startServer('postgres', freshDataDir(), database.url, 2);
    const two = await startServer('postgres', freshDataDir(), database.url, 3);
    const signup = await client(one.url)('POST', '/signup', { email: `wide-${Date.now()}@example.com`, password: 'a-long-password-1' });
    const key = signup.body.api_key;
    const { Client } = (await import('pg')).default;
    const pg = new Client({ connectionString: database.url });
    pg.on('error', () => {});
    await pg.connect();
    cleanups.push(() => pg.end());
    await pg.query(`update accounts set plan = 'enterprise'`);
    const mint = await client(one.url, key)('POST', '/v1/account/keys', { name: 'enterprise' });
    const api = client(two.url, mint.body.key);
    const WIDTH = 16;
    const stages = Array.from({ length: WIDTH }, (_, i) => ({ name: `s${i}`, type: 'command', command: 'sleep 1', template: 'python-311' }));
    const pipeline = (
      await api('POST', '/v1/pipelines', { name: 'wide', stages: [...stages, { name: 'join', type: 'command', command: 'true', template: 'python-311', depends_on: stages.map((s) => s.name) }] })
    ).body;
    const run = (await api('POST', `/v1/pipelines/${pipeline.id}/runs`, {})).body;
    const done = await waitFor(
      'the wide run to finish',
      async () => {
        const current = (await api('GET', `/v1/pipelines/${pipeline.id}/runs/${run.id}`)).body;
        return ['succeeded', 'failed', 'canceled'].includes(current.status) && current;
      },
      180_000,
      200,
    );
    expect(done.status).toBe('succeeded');
    expect(done.stages.every((s: any) => s.attempt === 1)).toBe(true);
    const attempts = (await pg.query(`select a.run_stage_id, a.attempt, a.worker_id from pipeline_stage_attempts a join pipeline_run_stages s on s.id = a.run_stage_id where s.run_id = $1`, [run.id]))
      .rows;
    expect(attempts).toHaveLength(WIDTH + 1);
    const sandboxes = (await pg.query(`select run_stage_id from pipeline_run_sandboxes where run_id = $1`, [run.id])).rows;
    expect(sandboxes).toHaveLength(WIDTH + 1);
    expect(new Set(sandboxes.map((r: any) => r.run_stage_id)).size).toBe(WIDTH + 1);
    expect(new Set(attempts.map((a: any) => a.worker_id))).toEqual(new Set([one.workerId, two.workerId]));
    await stopGracefully(one);
    await stopGracefully(two);
  });

  it('a live server takes over the stage of a server killed with SIGKILL within seconds (PostgreSQL)', async () => {
    const database = await createPgDatabase();
    cleanups.push(() => database.drop());
    const servers = [await startServer('postgres', freshDataDir(), database.url, 4), await startServer('postgres', freshDataDir(), database.url, 5)];
    const signup = await client(servers[0].url)('POST', '/signup', { email: `takeover-${Date.now()}@example.com`, password: 'a-long-password-1' });
    const { Client } = (await import('pg')).default;
    const pg = new Client({ connectionString: database.url });
    pg.on('error', () => {});
    await pg.connect();
    cleanups.push(() => pg.end());
    const api = (server: Server) => client(server.url, signup.body.api_key);
    const pipeline = (await api(servers[0])('POST', '/v1/pipelines', { name: 'takeover', stages: [{ name: 'work', type: 'command', command: 'sleep 4; echo finished', template: 'python-311' }] }))
      .body;
    const run = (await api(servers[0])('POST', `/v1/pipelines/${pipeline.id}/runs`, {})).body;
    const owner = await waitFor(
      'the stage to be leased',
      async () => (await pg.query(`select lease_owner from pipeline_run_stages where run_id = $1 and status = 'running'`, [run.id])).rows[0]?.lease_owner as string | undefined,
      30_000,
      200,
    );
    const victim = servers.find((s) => s.workerId === owner)!;
    const survivor = servers.find((s) => s !== victim)!;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await kill9(victim);
    const killedAt = Date.now();
    const done = await waitFor(
      'the survivor to finish the run',
      async () => {
        const current = (await api(survivor)('GET', `/v1/pipelines/${pipeline.id}/runs/${run.id}`)).body;
        return ['succeeded', 'failed', 'canceled'].includes(current.status) && current;
      },
      60_000,
      200,
    );
    expect(done.status).toBe('succeeded');
    const attempts = (await api(survivor)('GET', `/v1/pipelines/${pipeline.id}/runs/${run.id}/stages/work/logs`)).body.attempts;
    expect(attempts.map((a: any) => [a.status, a.worker_id])).toEqual([
      ['lost', victim.workerId],
      ['succeeded', survivor.workerId],
    ]);
    // Lease 3 s, renewed every second: taken over within the lease plus a poll, not hours.
    expect(Date.parse(attempts[1].started_at) - killedAt).toBeLessThan(6_000);
    await stopGracefully(survivor);
  });
});
