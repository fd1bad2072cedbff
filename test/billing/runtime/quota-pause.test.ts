// The compute quota on a real sandbox: with the pro plan's hours set to 18 seconds, the sweeper wakes at
// the predicted crossing by itself and pauses the running sandbox (never destroys it); creating and
// resuming then answer 403 plan_limit; after an upgrade the sandbox resumes with its files intact.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../../helpers/app.js';
import { waitFor } from '../../helpers/wait-for.js';

const QUOTA_HOURS = 0.005; // 18 s of running time

describe('compute quota with runc', () => {
  let t: TestApp;
  let key: string;
  let accountId: string;
  const body = { template: 'python-311', network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1 };

  beforeAll(async () => {
    t = await startApp('sqlite', { PADDOCK_PLAN_PRO_COMPUTE_HOURS: String(QUOTA_HOURS), PADDOCK_QUOTA_CHECK_INTERVAL_MS: '5000' }, { runtime: 'runc', networkProfile: 1 });
    ({
      key,
      account: { id: accountId },
    } = await t.signupOnPlan('pro'));
  });
  afterAll(async () => {
    await t?.close();
  });

  it('pauses a running sandbox at the quota, refuses creates and resumes, and resumes it with its files after an upgrade', async () => {
    const created = await t.request('POST', '/v1/sandboxes', { token: key, body });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const write = await t.request('POST', `/v1/sandboxes/${id}/exec`, { token: key, body: { command: 'echo work in progress > /workspace/keep.txt' } });
    expect(write.body.exit_code).toBe(0);

    await waitFor('the quota to pause the sandbox', async () => (await t.request('GET', `/v1/sandboxes/${id}`, { token: key })).body.status === 'paused', 90_000, 500);
    // Paused when the quota was reached (at the predicted crossing, or the 5 s check under load), not much later.
    const used = await t.services.usage.usage(accountId, { start: new Date(Date.now() - 86_400_000).toISOString(), end: new Date(Date.now() + 1000).toISOString() });
    expect(used.computeHours).toBeGreaterThanOrEqual(QUOTA_HOURS);
    expect(used.computeHours).toBeLessThan(QUOTA_HOURS + 15 / 3600);
    const listed = await t.request('GET', '/v1/alerts', { token: key });
    expect(listed.status, listed.text).toBe(200);
    const alerts = listed.body as any[];
    expect(alerts.map((alert) => alert.type)).toEqual(expect.arrayContaining(['quota_warning', 'quota_exceeded']));
    const events = (await t.request('GET', `/v1/sandboxes/${id}/events`, { token: key })).body as any[];
    expect(events.find((event) => event.type === 'sandbox.paused')?.data).toMatchObject({ reason: 'compute_quota' });

    const refusedCreate = await t.request('POST', '/v1/sandboxes', { token: key, body });
    expect(refusedCreate.status).toBe(403);
    expect(refusedCreate.body).toMatchObject({ code: 'plan_limit' });
    expect(refusedCreate.body.error).toMatch(/^the pro plan's 0.005 compute hours for the period ending .* are used up/);
    const refusedResume = await t.request('POST', `/v1/sandboxes/${id}/resume`, { token: key });
    expect(refusedResume.status).toBe(403);
    expect(refusedResume.body).toMatchObject({ code: 'plan_limit' });
    expect((await t.request('GET', `/v1/sandboxes/${id}`, { token: key })).body.status).toBe('paused');

    // The upgrade (billing-core's plan change writes accounts.plan and forgets the cached credentials).
    await t.storage.db.updateTable('accounts').set({ plan: 'team' }).where('id', '=', accountId).execute();
    t.services.accounts.forgetAccount(accountId);
    const resumed = await t.request('POST', `/v1/sandboxes/${id}/resume`, { token: key });
    expect(resumed.status).toBe(200);
    expect(resumed.body.status).toBe('running');
    const read = await t.request('POST', `/v1/sandboxes/${id}/exec`, { token: key, body: { command: 'cat /workspace/keep.txt' } });
    expect(read.body).toMatchObject({ exit_code: 0, output: 'work in progress\n' });
    expect((await t.request('DELETE', `/v1/sandboxes/${id}`, { token: key })).status).toBe(204);
  }, 150_000);
});
