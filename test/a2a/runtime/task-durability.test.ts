// Tasks are durable as runs are: a server killed with SIGKILL while a task's stage runs comes back,
// the task completes, and its event log is whole (every status, no gap in sequences), on both databases.
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeDataDir, TEST_TEMPLATES_DIR } from '../../helpers/app.js';
import { BACKENDS, createPgDatabase } from '../../helpers/backends.js';
import { ECHO_SKILL } from '../../helpers/a2a.js';
import { startServerChild, type ServerChild } from '../../helpers/server-child.js';
import { waitFor } from '../../helpers/wait-for.js';

type Server = ServerChild;

const children: ChildProcess[] = [];
const dataDirs: string[] = [];
const cleanups: (() => Promise<void>)[] = [];
const PROFILE = 4;

function startServer(backend: string, dataDir: string, databaseUrl: string | null): Promise<Server> {
  return startServerChild('test/helpers/pipeline-server-process.ts', [backend, dataDir, databaseUrl ?? '-', String(PROFILE), 'runc'], 'server', (child) => children.push(child));
}

async function stop(server: Server, signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode) return;
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill(signal);
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
  await Promise.all(
    children.splice(0).map((child) => {
      if (child.exitCode !== null || child.signalCode) return Promise.resolve();
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      return gone;
    }),
  );
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  for (const dataDir of dataDirs.splice(0)) await removeDataDir(dataDir, { runtime: 'runc', networkProfile: PROFILE });
});

describe.each(BACKENDS)('A2A task durability on %s', (backend) => {
  it('completes a task after its server is killed with SIGKILL mid-stage, with its whole event log', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-task-durable-'));
    fs.symlinkSync(TEST_TEMPLATES_DIR, path.join(dataDir, 'templates'));
    dataDirs.push(dataDir);
    let databaseUrl: string | null = null;
    if (backend === 'postgres') {
      const database = await createPgDatabase();
      cleanups.push(() => database.drop());
      databaseUrl = database.url;
    }
    let server = await startServer(backend, dataDir, databaseUrl);
    const signup = await client(server.url)('POST', '/signup', { email: `task-durable-${Date.now()}@example.com`, password: 'a-long-password-1' });
    const api = () => client(server.url, signup.body.api_key);
    const pipeline = (
      await api()('POST', '/v1/pipelines', {
        name: 'durable-task',
        defaults: { template: 'python-311' },
        stages: [
          { name: 'first', type: 'command', command: 'echo first' },
          { name: 'long', type: 'command', command: 'sleep 5; echo survived', depends_on: ['first'] },
        ],
      })
    ).body;
    const agent = (await api()('POST', '/v1/a2a/agents', { name: 'durable', pipeline_id: pipeline.id, skills: [ECHO_SKILL] })).body;
    const created = await api()('POST', `/v1/a2a/agents/${agent.id}/tasks`, { skill_id: 'echo', input: { query: 'survive' } });
    expect(created.status).toBe(201);
    const task = created.body;
    await waitFor('the long stage to run', async () => (await api()('GET', `/v1/a2a/tasks/${task.id}`)).body.progress.current_step === 'long', 60_000, 200);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await stop(server, 'SIGKILL');

    server = await startServer(backend, dataDir, databaseUrl);
    const done = await waitFor(
      'the task to end after the restart',
      async () => {
        const current = (await api()('GET', `/v1/a2a/tasks/${task.id}`)).body;
        return ['completed', 'failed', 'canceled'].includes(current.status) && current;
      },
      90_000,
      500,
    );
    expect(done.status).toBe('completed');
    const events = (await api()('GET', `/v1/a2a/tasks/${task.id}/events?limit=1000`)).body.events;
    expect(events.map((event: any) => event.sequence)).toEqual(events.map((_: unknown, index: number) => index + 1));
    expect(events.filter((event: any) => event.kind === 'status').map((event: any) => event.data.status)).toEqual(['pending', 'running', 'completed']);
    expect(events.at(-1)).toMatchObject({ kind: 'complete', data: { status: 'completed' } });
    // The long stage started twice (the lost attempt and the one after the restart), each a progress event.
    const progress = events.filter((event: any) => event.kind === 'progress').map((event: any) => event.data.message);
    expect(progress.filter((message: string) => message.startsWith('stage long started'))).toHaveLength(2);
    expect(progress.at(-1)).toMatch(/^stage long completed/);
    await stop(server, 'SIGTERM');
  });
});
