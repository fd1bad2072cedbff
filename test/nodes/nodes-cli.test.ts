// `paddock nodes` from the console, run as the built binary on the database of a running server: it lists
// the nodes, drains and undrains one by its id (the same service as the operator API), and says what is wrong.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { runCli } from '../helpers/cli.js';

const ID = 'console-node:/var/lib/paddock';

describe.each(BACKENDS)('paddock nodes on %s', (backend) => {
  let t: TestApp;
  let env: Record<string, string>;

  beforeAll(async () => {
    t = await startApp(backend, { PADDOCK_HOST_ID: ID });
    env = { PADDOCK_DATA: t.dataDir, PADDOCK_LOG_LEVEL: 'warn', DATABASE_URL: t.databaseUrl ?? '' };
  });
  afterAll(async () => {
    await t?.close();
  });

  const cli = async (...args: string[]) => {
    const result = await runCli(['nodes', ...args], env);
    const lines = result.stdout.trim() ? result.stdout.trim().split('\n') : [];
    return { ...result, rows: lines.map((line) => JSON.parse(line)) };
  };

  it('lists the nodes, drains and undrains one by id; the server sees the change', async () => {
    const listed = await cli('list');
    expect(listed.code).toBe(0);
    expect(listed.rows).toEqual([expect.objectContaining({ id: ID, role: 'all', state: 'active', address: t.url, alive: true })]);
    const drained = await cli('drain', ID);
    expect(drained.code).toBe(0);
    expect(drained.rows).toEqual([expect.objectContaining({ id: ID, state: 'draining' })]);
    expect(await t.services.nodes.service.get(ID)).toMatchObject({ state: 'draining' });
    const undrained = await cli('undrain', ID);
    expect(undrained.rows).toEqual([expect.objectContaining({ id: ID, state: 'active', drained_at: null })]);
  });

  it('answers 1 for an unknown node and 2 with the usage for a wrong command', async () => {
    const unknown = await cli('drain', 'nobody:/nowhere');
    expect(unknown).toMatchObject({ code: 1, stdout: '' });
    expect(unknown.stderr).toContain('node nobody:/nowhere not found');
    const wrong = await cli('evict', ID);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain('unknown nodes command "evict"');
    expect(wrong.stderr).toContain('usage: paddock nodes');
    expect((await cli('drain')).stderr).toContain('drain needs the node id');
  });
});
