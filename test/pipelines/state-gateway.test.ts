// The state gateway stage sandboxes call (pipelines/state/gateway.ts), driven directly over HTTP on the
// loopback with a token minted for a live run: a key whose percent-encoding does not decode is a 400,
// not a 500 (it threw URIError), and the same key sent encoded properly still works. Both databases.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StateGateway } from '../../src/pipelines/state/gateway.js';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createPipeline, startRun, waitForRun } from '../helpers/pipelines.js';

const PORT_BASE = 47_100 + Number(process.env.PADDOCK_TEST_NETWORK_BASE ?? 0);

describe.each(BACKENDS)('state gateway on %s', (backend) => {
  let t: TestApp;
  let gateway: StateGateway;
  let access: Record<string, string>;

  beforeAll(async () => {
    t = await startApp(backend, { PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50' });
    const { key } = await t.signup();
    const pipeline = await createPipeline(t, key, { stages: [{ name: 'wait', type: 'await_approval', config: { message: 'hold' } }] });
    const run = await startRun(t, key, pipeline.id);
    await waitForRun(t, key, pipeline.id, run.id, (r) => r.status === 'paused');
    gateway = new StateGateway(t.storage.db, t.services.pipelines.state, PORT_BASE + (backend === 'sqlite' ? 1 : 2), { info() {}, warn() {} } as never);
    await gateway.start('127.0.0.1');
    access = gateway.accessFor(run.id, 'wait');
    expect(access.PADDOCK_STATE_URL).toBeTruthy();
  });
  afterAll(async () => {
    await gateway?.stop();
    await t?.close();
  });

  const call = (method: string, suffix: string, body?: unknown) =>
    fetch(`${access.PADDOCK_STATE_URL}${suffix}`, {
      method,
      headers: { authorization: `Bearer ${access.PADDOCK_STATE_TOKEN}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('answers 400 for a key whose percent-encoding does not decode, on every method', async () => {
    for (const method of ['GET', 'PUT', 'DELETE']) {
      for (const key of ['%ZZ', '%E0%A4%A', '%']) {
        const reply = await call(method, `/${key}`, method === 'PUT' ? { value: 'x' } : undefined);
        expect(reply.status, `${method} ${key}`).toBe(400);
        expect(await reply.json()).toEqual({ error: 'the state key is not valid percent-encoded UTF-8', code: 'invalid_path' });
      }
    }
  });

  it('still stores and reads a key sent encoded', async () => {
    expect((await call('PUT', `/${encodeURIComponent('a b%')}`, { value: 'kept' })).status).toBe(200);
    expect(await (await call('GET', `/${encodeURIComponent('a b%')}`)).json()).toMatchObject({ key: 'a b%', value: 'kept' });
  });
});
