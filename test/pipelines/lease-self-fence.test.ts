// A worker cut off from its PostgreSQL (a partition: no error, no answer) stops its running attempt
// before its lease runs out, so the attempt another worker takes over never runs twice at once; once the
// database answers again, the stage runs anew. The server runs in its own process, as in production:
// whatever the partition does to its database driver must not bring it down.
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestAgent, type TestAgent } from '../helpers/a2a-agent.js';
import { createPgDatabase } from '../helpers/backends.js';
import { startServerChild } from '../helpers/server-child.js';
import { startTcpRelay, type TcpRelay } from '../helpers/tcp-relay.js';
import { waitFor } from '../helpers/wait-for.js';

const LEASE_SECONDS = 3;

describe('a pipeline worker that cannot renew its lease', () => {
  let relay: TcpRelay;
  let server: ChildProcess | undefined;
  let url: string;
  let agent: TestAgent;
  let database: { url: string; drop(): Promise<void> };
  let stderr = '';
  const call = async (method: string, path: string, token?: string, body?: unknown) => {
    const reply = await fetch(`${url}${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: reply.status, body: await reply.json().catch(() => null) };
  };

  beforeAll(async () => {
    database = await createPgDatabase();
    const relayed = new URL(database.url);
    relay = await startTcpRelay({ host: relayed.hostname, port: Number(relayed.port || 5432) });
    relayed.port = String(relay.port);
    agent = await startTestAgent();
    const settings = {
      DATABASE_URL: relayed.toString(),
      PADDOCK_PIPELINE_LEASE_SECONDS: String(LEASE_SECONDS),
      PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50',
      PADDOCK_ALLOW_PRIVATE_WEBHOOKS: 'true',
      PADDOCK_ALLOW_HTTP_WEBHOOKS: 'true',
      PADDOCK_LOG_LEVEL: 'warn',
    };
    const started = await startServerChild('test/helpers/app-process.ts', [JSON.stringify(settings)], 'the server', (child) => {
      server = child;
      child.stderr!.on('data', (chunk) => (stderr += chunk));
    });
    url = started.url;
  }, 120_000);
  afterAll(async () => {
    relay?.heal();
    server?.kill('SIGKILL');
    await agent?.close();
    await relay?.close();
    await database?.drop();
  });

  it('stops the attempt itself while the database is silent, and runs it anew after', async () => {
    const signup = await call('POST', '/signup', undefined, { email: `fence-${Date.now()}@example.com`, password: 'correct horse battery' });
    expect(signup.status, JSON.stringify(signup.body)).toBe(201);
    const key = signup.body.api_key;
    const pipeline = await call('POST', '/v1/pipelines', key, {
      name: 'fence',
      stages: [{ name: 'review', type: 'a2a', config: { agent_url: agent.url, skill_id: 'slow', prompt: 'work until stopped' } }],
    });
    expect(pipeline.status, JSON.stringify(pipeline.body)).toBe(201);
    const run = (await call('POST', `/v1/pipelines/${pipeline.body.id}/runs`, key, {})).body;
    await waitFor('the agent to get the task', async () => (agent.received.length > 0 ? true : Promise.reject(new Error('nothing received'))), 15_000, 50);
    const cutAt = Date.now();
    relay.cut();
    // Nothing tells the worker its lease is gone (the database does not answer); it stops on its own, in time.
    await waitFor('the remote task to be canceled', async () => (agent.canceled.length > 0 ? true : Promise.reject(new Error('not canceled'))), LEASE_SECONDS * 1000 + 2000, 50);
    expect(Date.now() - cutAt).toBeLessThan(LEASE_SECONDS * 1000 + 1000);
    relay.heal();
    const logs = await waitFor(
      'a second attempt',
      async () => {
        const reply = await call('GET', `/v1/pipelines/${pipeline.body.id}/runs/${run.id}/stages/review/logs`, key);
        return reply.body?.attempts?.length >= 2 ? reply.body : Promise.reject(new Error(`${JSON.stringify(reply.body)} ${stderr.slice(-2000)}`));
      },
      30_000,
      100,
    );
    // Handed back (interrupted) when the hand-back got through first, else found expired and taken over (lost).
    expect(logs.attempts[0].attempt).toBe(1);
    expect(['interrupted', 'lost']).toContain(logs.attempts[0].status);
    expect(server!.exitCode).toBeNull();
    await call('POST', `/v1/pipelines/${pipeline.body.id}/runs/${run.id}/cancel`, key);
  });
});
