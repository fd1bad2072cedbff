// Two servers on one PostgreSQL database, each with its own runtime: each acts only on the sandboxes
// its runtime holds. A server starting (reconcile) or watching for crashes must not take the other's
// live sandboxes for dead ones.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { waitForSandboxStatus } from '../helpers/sandboxes.js';
import { waitFor } from '../helpers/wait-for.js';

describe('two servers sharing one database (runc)', () => {
  let first: TestApp;
  let second: TestApp;
  let key: string;
  let sandboxOnFirst: string;

  beforeAll(async () => {
    first = await startApp('postgres', {}, { runtime: 'runc', networkProfile: 1 });
    key = (await first.signupOnPlan('pro')).key;
    const created = await first.request('POST', '/v1/sandboxes', { token: key, body: { template: 'minimal', cpus: 1, memory_mb: 256, disk_gb: 1 } });
    expect(created.status, created.text).toBe(201);
    sandboxOnFirst = created.body.id;
    await waitForSandboxStatus(first, key, sandboxOnFirst, ['running'], 10_000);
    // Started after the first server's sandbox is running: its start-up reconcile sees that row.
    second = await startApp('postgres', { DATABASE_URL: first.databaseUrl! }, { runtime: 'runc', networkProfile: 2 });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('records which server holds each sandbox', async () => {
    const created = await second.request('POST', '/v1/sandboxes', { token: key, body: { template: 'minimal', cpus: 1, memory_mb: 256, disk_gb: 1 } });
    expect(created.status, created.text).toBe(201);
    await waitForSandboxStatus(second, key, created.body.id, ['running'], 10_000);
    const rows = await first.storage.db.selectFrom('sandboxes').select(['id', 'host_id']).where('id', 'in', [sandboxOnFirst, created.body.id]).execute();
    const hostOf = Object.fromEntries(rows.map((row) => [row.id, row.host_id]));
    expect(hostOf[sandboxOnFirst]).toBe(first.config.hostId);
    expect(hostOf[created.body.id]).toBe(second.config.hostId);
    expect(first.config.hostId).not.toBe(second.config.hostId);
  });

  it("leaves the other server's sandboxes alone: not marked dead at start, nor by its crash checks", async () => {
    // The crash monitor checks every 2 s; give the second server two rounds.
    await new Promise((resolve) => setTimeout(resolve, 4500));
    const seen = await second.request('GET', `/v1/sandboxes/${sandboxOnFirst}`, { token: key });
    expect(seen.body).toMatchObject({ status: 'running', error: null });
    const exec = await first.request('POST', `/v1/sandboxes/${sandboxOnFirst}/exec`, { token: key, body: { command: 'echo still-here' } });
    expect(exec.body).toMatchObject({ exit_code: 0, stdout: 'still-here\n' });
    const alerts = await first.request('GET', '/v1/alerts', { token: key });
    expect(alerts.body.filter((alert: any) => alert.type === 'sandbox_error')).toEqual([]);
  });

  it("leaves the other server's sandbox ports alone: its scans neither forget nor re-detect them", async () => {
    const created = await first.request('POST', '/v1/sandboxes', { token: key, body: { template: 'python-311', cpus: 1, memory_mb: 256, disk_gb: 1 } });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id;
    await waitForSandboxStatus(first, key, id, ['running'], 10_000);
    await first.request('POST', `/v1/sandboxes/${id}/exec`, { token: key, body: { command: 'nohup python3 -m http.server 8000 >/dev/null 2>&1 &' } });
    const detectedAt = await waitFor(
      'port 8000 to be detected',
      async () => {
        const ports = await first.request('GET', `/v1/sandboxes/${id}/ports`, { token: key });
        return (ports.body as { port: number; detected_at: string }[]).find((port) => port.port === 8000)?.detected_at;
      },
      10_000,
      100,
    );
    // The second server scans every 2 s: were the port its own stopped sandbox's, it would forget it and
    // the first server would detect it again, with a new detected_at.
    await new Promise((resolve) => setTimeout(resolve, 4500));
    const row = await second.storage.db.selectFrom('sandbox_ports').selectAll().where('sandbox_id', '=', id).where('port', '=', 8000).executeTakeFirst();
    expect(row).toMatchObject({ listening: 1, detected_at: detectedAt });
  });
});
