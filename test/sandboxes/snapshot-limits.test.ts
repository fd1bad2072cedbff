// Snapshot limits (per sandbox, per snapshot, per account) answer 403 with a message naming the limit.
// The limits are lowered through configuration so real archives reach them in seconds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';

describe.each(BACKENDS)('snapshot limits on %s (runc)', (backend) => {
  let t: TestApp;
  let key: string;

  const create = async () => {
    const reply = await t.request('POST', '/v1/sandboxes', { token: key, body: { template: 'minimal', network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1 } });
    expect(reply.status).toBe(201);
    return reply.body.id as string;
  };
  const exec = async (id: string, command: string) => (await t.request('POST', `/v1/sandboxes/${id}/exec`, { token: key, body: { command } })).body;
  const snapshot = (id: string, name = 'n') => t.request('POST', `/v1/sandboxes/${id}/snapshots`, { token: key, body: { name } });

  beforeAll(async () => {
    t = await startApp(
      backend,
      {
        PADDOCK_SNAPSHOTS_PER_SANDBOX: '2',
        PADDOCK_SNAPSHOT_MAX_BYTES: '1000000',
        PADDOCK_SNAPSHOT_ACCOUNT_MAX_BYTES: '1500000',
      },
      { runtime: 'runc' },
    );
    key = (await t.signupOnPlan('team')).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('allows the per-sandbox number of snapshots, then 403 until one is deleted', async () => {
    const id = await create();
    const first = await snapshot(id);
    expect(first.status).toBe(201);
    expect((await snapshot(id)).status).toBe(201);
    const third = await snapshot(id);
    expect(third.status).toBe(403);
    expect(third.body.error).toMatch(/already has 2 snapshots; the limit is 2 per sandbox/);
    expect((await t.request('DELETE', `/v1/snapshots/${first.body.id}`, { token: key })).status).toBe(204);
    expect((await snapshot(id)).status).toBe(201);
  });

  it('refuses a snapshot larger than the per-snapshot limit and keeps nothing of it', async () => {
    const id = await create();
    expect((await exec(id, 'head -c 2000000 /dev/urandom > /workspace/big')).exit_code).toBe(0);
    const refused = await snapshot(id);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/the limit is .* per snapshot/);
    expect((await t.request('GET', `/v1/sandboxes/${id}/snapshots`, { token: key })).body).toEqual([]);
    expect((await exec(id, 'echo still running')).output).toBe('still running\n');
  });

  it('refuses snapshots past the account total, and the automatic pause snapshot fails saying so', async () => {
    const id = await create();
    expect((await exec(id, 'head -c 800000 /dev/urandom > /workspace/part')).exit_code).toBe(0);
    const kept = await snapshot(id);
    expect(kept.status).toBe(201);
    const refused = await snapshot(id);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/the limit is .* per account/);

    const paused = await t.request('POST', `/v1/sandboxes/${id}/pause`, { token: key });
    expect(paused.status).toBe(200);
    expect(paused.body.status).toBe('paused');
    await t.services.snapshots!.settled();
    const automatic = (await t.request('GET', `/v1/snapshots/${paused.body.snapshot_id}`, { token: key })).body;
    expect(automatic).toMatchObject({ kind: 'pause', status: 'failed', error: expect.stringMatching(/per account/) });

    // Another account has its own allowance.
    const otherKey = (await t.signupOnPlan('team')).key;
    const other = await t.request('POST', '/v1/sandboxes', { token: otherKey, body: { template: 'minimal', network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1 } });
    expect((await t.request('POST', `/v1/sandboxes/${other.body.id}/snapshots`, { token: otherKey, body: { name: 'mine' } })).status).toBe(201);
  });
});
