// The batch creation fields: `resources` maps onto cpus/memory_mb (which win), and `secrets` injects
// account secrets as environment variables, listed by name only and masked in recorded output.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';

const RUNTIMES = ['runc', 'gvisor'] as const;

describe.each(RUNTIMES)('batch fields with %s', (runtime) => {
  let t: TestApp;
  let key: string;
  const token = `tok-${Math.random().toString(36).slice(2)}-secret`;

  const create = (body: object) => t.request('POST', '/v1/sandboxes', { token: key, body: { template: 'minimal', network_mode: 'none', disk_gb: 1, ...body } });

  beforeAll(async () => {
    t = await startApp('sqlite', {}, { runtime });
    key = (await t.signupOnPlan('team')).key;
    t.secrets.add(token);
    expect((await t.request('PUT', '/v1/secrets/API_TOKEN', { token: key, body: { value: token } })).status).toBe(201);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('maps resources to cpus and memory_mb, with cpus and memory_mb winning', async () => {
    const fromResources = await create({ resources: { cpu: 1.5, memory: 0.5 } });
    expect(fromResources.status).toBe(201);
    expect(fromResources.body).toMatchObject({ cpus: 2, memory_mb: 512 });
    const limit = await t.request('POST', `/v1/sandboxes/${fromResources.body.id}/exec`, {
      token: key,
      body: { command: 'cat /sys/fs/cgroup/memory/memory.limit_in_bytes 2>/dev/null || cat /sys/fs/cgroup/memory.max' },
    });
    if (runtime === 'runc') expect(Number(limit.body.output)).toBe(512 * 1024 * 1024);

    const both = await create({ cpus: 1, memory_mb: 256, resources: { cpu: 4, memory: 2 } });
    expect(both.body).toMatchObject({ cpus: 1, memory_mb: 256 });

    for (const resources of [{ cpu: 0 }, { cpu: 9 }, { memory: 0.1 }, { memory: 9 }, { gpu: 1 }]) {
      const bad = await create({ resources });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toMatch(/resources/);
    }
  });

  it('injects named secrets as environment variables and never shows their values', async () => {
    const created = await create({ cpus: 1, memory_mb: 256, secrets: ['API_TOKEN'], env: { API_TOKEN: 'overridden', OTHER: 'x' } });
    expect(created.status).toBe(201);
    const id = created.body.id;
    const exec = await t.request('POST', `/v1/sandboxes/${id}/exec`, { token: key, body: { command: 'echo "token=$API_TOKEN other=$OTHER"' } });
    expect(exec.body.output).toBe(`token=${token} other=x\n`);

    const sandbox = (await t.request('GET', `/v1/sandboxes/${id}`, { token: key })).body;
    expect(sandbox.secrets).toEqual(['API_TOKEN']);
    expect(sandbox.env).toEqual({ API_TOKEN: 'overridden', OTHER: 'x' });
    expect(JSON.stringify(sandbox)).not.toContain(token);

    // The recorded command output has the value masked.
    const [session] = (await t.request('GET', `/v1/sandboxes/${id}/sessions`, { token: key })).body;
    const replay = (await t.request('GET', `/v1/sessions/${session.id}/replay`, { token: key })).body;
    expect(replay.events.at(-1).data.output).toBe('token=*** other=x\n');
    expect(JSON.stringify(replay)).not.toContain(token);

    // Never in the database rows of sandboxes or sessions.
    const rows = JSON.stringify(await t.storage.db.selectFrom('sandboxes').selectAll().execute());
    const events = JSON.stringify(await t.storage.db.selectFrom('session_events').selectAll().execute());
    expect(rows).not.toContain(token);
    expect(events).not.toContain(token);
    expect(fs.readFileSync(t.logFile, 'utf8')).not.toContain(token);
  });

  it('rejects unknown secret names and bad lists', async () => {
    const unknown = await create({ cpus: 1, memory_mb: 256, secrets: ['API_TOKEN', 'NOPE'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toMatch(/body.secrets names secrets that do not exist: NOPE/);
    expect((await create({ secrets: ['bad-name'] })).status).toBe(400);
    expect((await create({ secrets: ['API_TOKEN', 'API_TOKEN'] })).status).toBe(400);
  });
});
