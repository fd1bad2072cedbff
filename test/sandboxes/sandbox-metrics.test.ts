// paddock_sandboxes counts the sandboxes this server holds by status and runtime, read at each scrape
// of the metrics listener: a real sandbox on runc, on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { parseExposition, valueOf } from '../metrics/exposition.js';

describe.each(BACKENDS)('sandbox metrics with runc on %s', (backend) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startApp(backend, { PADDOCK_METRICS_LISTEN: '127.0.0.1:0' }, { runtime: 'runc' });
    key = (await t.signupOnPlan('team')).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  async function sandboxes() {
    const response = await fetch(`http://127.0.0.1:${t.services.metrics.address()!.port}/metrics`);
    expect(response.status).toBe(200);
    const families = parseExposition(await response.text());
    return (status: string) => valueOf(families, 'paddock_sandboxes', { status, runtime: 'runc' });
  }

  it('counts a running sandbox, and no longer once it is destroyed', async () => {
    const before = await sandboxes();
    expect(before('running')).toBe(0);
    expect(before('paused')).toBe(0);
    expect(before('destroyed')).toBeUndefined();

    const created = await t.request('POST', '/v1/sandboxes', { token: key, body: { template: 'python-311', network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1 } });
    expect(created.status, created.text).toBe(201);
    expect((await sandboxes())('running')).toBe(1);

    expect((await t.request('DELETE', `/v1/sandboxes/${created.body.id}`, { token: key })).status).toBe(204);
    const after = await sandboxes();
    expect(after('running')).toBe(0);
    expect(after('destroyed')).toBeUndefined();
  });
});
