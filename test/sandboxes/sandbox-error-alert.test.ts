// A sandbox that enters the error state raises `sandbox_error`: here its init process is killed from
// the host (a crash), and a set-up step fails. The alert, its notification and its webhook delivery are
// real rows and a real HTTP call.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { startHttpReceiver, type HttpReceiver } from '../helpers/receivers.js';
import { waitFor } from '../helpers/wait-for.js';

const TEMPLATE = 'python-311';

describe.each(BACKENDS)('sandbox_error alerts with runc on %s', (backend) => {
  let t: TestApp;
  let key: string;
  let hook: HttpReceiver;

  beforeAll(async () => {
    hook = await startHttpReceiver();
    t = await startApp(backend, { PADDOCK_ALLOW_PRIVATE_WEBHOOKS: 'true', PADDOCK_ALLOW_HTTP_WEBHOOKS: 'true', PADDOCK_OUTBOX_POLL_INTERVAL_MS: '50' }, { runtime: 'runc' });
    key = (await t.signupOnPlan('team')).key;
    const saved = await t.request('PUT', '/v1/notifications/config', { token: key, body: { channels: { webhook: { enabled: true, url: `${hook.url}/alerts` } } } });
    expect(saved.status).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await hook?.close();
  });

  const create = (body: object = {}) => t.request('POST', '/v1/sandboxes', { token: key, body: { template: TEMPLATE, network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1, ...body } });
  const alertsFor = async (sandboxId: string) => (await t.request('GET', `/v1/alerts?type=sandbox_error&sandbox_id=${sandboxId}`, { token: key })).body as any[];

  it('raises sandbox_error once when a crashed sandbox is found in error', async () => {
    const created = await create();
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect(await alertsFor(id)).toEqual([]);

    // The sandbox's init process dies, as in a crash.
    execFileSync('runc', ['--root', path.join(t.config.dataDir, 'runtime', 'runc'), 'kill', id, 'KILL']);
    const failed = await waitFor('exec to notice the dead sandbox', async () => {
      const reply = await t.request('POST', `/v1/sandboxes/${id}/exec`, { token: key, body: { command: 'true' } });
      return reply.body.error ? reply.body : null;
    });
    expect(failed.exit_code).toBe(1);
    const sandbox = (await t.request('GET', `/v1/sandboxes/${id}`, { token: key })).body;
    expect(sandbox.status).toBe('error');
    expect(sandbox.error).toMatch(/stopped unexpectedly/);

    const [alert, ...more] = await alertsFor(id);
    expect(more).toEqual([]);
    expect(alert).toMatchObject({ type: 'sandbox_error', severity: 'error', sandbox_id: id, resolved: false, resource: { kind: 'sandbox', id }, details: { error: sandbox.error } });
    expect(alert.message).toBe(`Sandbox ${id} entered the error state: ${sandbox.error}`);

    // Looking again does not raise again.
    await t.request('POST', `/v1/sandboxes/${id}/exec`, { token: key, body: { command: 'true' } });
    expect(await alertsFor(id)).toHaveLength(1);

    const notifications = (await t.request('GET', '/v1/notifications?type=sandbox_error', { token: key })).body;
    expect(notifications.filter((n: any) => n.alert_id === alert.id)).toHaveLength(1);
    const call = await waitFor('the webhook call', () => hook.requests.find((r) => JSON.parse(r.body).data.id === alert.id));
    expect(JSON.parse(call.body)).toMatchObject({ type: 'alert.raised', data: { type: 'sandbox_error', sandbox_id: id } });
    expect(call.headers['webhook-signature']).toMatch(/^v1,/);
  });

  it('raises sandbox_error when a set-up step fails', async () => {
    const created = await create({ init_script: 'echo cannot continue >&2; exit 7' });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const sandbox = await waitFor(
      'set-up to fail',
      async () => {
        const body = (await t.request('GET', `/v1/sandboxes/${id}`, { token: key })).body;
        return body.status === 'error' ? body : null;
      },
      60_000,
    );
    expect(sandbox.error).toMatch(/init_script exited with 7/);
    const [alert] = await alertsFor(id);
    expect(alert).toMatchObject({ severity: 'error', sandbox_id: id, details: { error: sandbox.error } });
  });
});
