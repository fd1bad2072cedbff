// The node registry: every server registers itself once it listens, with its capacity and a heartbeat;
// operators list nodes and drain or undrain them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';

describe.each(BACKENDS)('node registry (%s)', (backend) => {
  let first: TestApp;
  let second: TestApp;
  let operator: string;

  beforeAll(async () => {
    first = await startApp(backend, { PADDOCK_HOST_ID: 'node-a:/srv/a' });
    second =
      backend === 'postgres'
        ? await startApp(backend, { PADDOCK_HOST_ID: 'node-b/x', DATABASE_URL: first.databaseUrl! })
        : await startApp(backend, { PADDOCK_HOST_ID: 'node-b/x' }, { reuse: { dataDir: first.dataDir, databaseUrl: null } });
    operator = (await first.signup()).key;
  });
  afterAll(async () => {
    await second?.close({ keepData: backend === 'sqlite' });
    await first?.close();
  });

  it('registers every server with its role, address, capacity and version', async () => {
    const reply = await first.request('GET', '/v1/admin/nodes', { token: operator });
    expect(reply.status).toBe(200);
    expect(reply.body.map((node: any) => node.id)).toEqual(['node-a:/srv/a', 'node-b/x']);
  });
});
