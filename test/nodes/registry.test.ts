// The node registry with two servers on one database: each registers itself once it listens, with its
// measured capacity and a heartbeat; operators list nodes and drain or undrain them; a node whose row
// was declared lost meanwhile (fenced: its epoch moved on) registers again; a clean close leaves `stopped`.
import fs from 'node:fs';
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, Paddock } from '../../sdk/src/index.js';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';

const FAST = { PADDOCK_NODE_HEARTBEAT_MS: '200', PADDOCK_NODE_DEAD_AFTER_SECONDS: '1' };
const A = 'node-a:/srv/a';
const B = 'node-b:/srv/b/data';
const VERSION = JSON.parse(fs.readFileSync('package.json', 'utf8')).version;

async function waitFor<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe.each(BACKENDS)('node registry (%s)', (backend) => {
  let first: TestApp;
  let second: TestApp;
  let operator: string;
  let member: string;
  const nodes = async (token = operator) => first.request('GET', '/v1/admin/nodes', { token });
  const nodeOf = async (id: string) => ((await nodes()).body as any[]).find((node) => node.id === id);

  beforeAll(async () => {
    first = await startApp(backend, { ...FAST, PADDOCK_HOST_ID: A });
    const env = { ...FAST, PADDOCK_HOST_ID: B, PADDOCK_NODE_MAX_SANDBOXES: '7' };
    // Two servers, one database: PostgreSQL by URL, SQLite by sharing the data directory's file.
    second = backend === 'postgres' ? await startApp(backend, { ...env, DATABASE_URL: first.databaseUrl! }) : await startApp(backend, env, { reuse: { dataDir: first.dataDir, databaseUrl: null } });
    operator = (await first.signup()).key;
    member = (await first.signup()).key;
  });
  afterAll(async () => {
    await second?.close({ keepData: backend === 'sqlite' });
    await first?.close();
  });

  it('lists both servers, sorted by id, with role, address, measured capacity, version and a live heartbeat', async () => {
    const reply = await nodes();
    expect(reply.status).toBe(200);
    expect(reply.body.map((node: any) => node.id)).toEqual([A, B]);
    const [a, b] = reply.body;
    const perMemory = Math.floor(os.totalmem() / (256 * 1024 ** 2));
    expect(a).toMatchObject({
      role: 'all',
      address: first.url,
      state: 'active',
      epoch: 1,
      runtime: null,
      capacity: { cpus: os.cpus().length, memory_bytes: os.totalmem(), max_sandboxes: perMemory },
      sandboxes: 0,
      templates: [],
      version: VERSION,
      drained_at: null,
      lost_at: null,
      alive: true,
    });
    expect(a.capacity.disk_bytes).toBeGreaterThan(0);
    expect(b).toMatchObject({ address: second.url, state: 'active', capacity: { max_sandboxes: 7 }, alive: true });
    // The heartbeat moves on every 200 ms.
    const before = Date.parse(b.heartbeat_at);
    await waitFor('a newer heartbeat', async () => Date.parse((await nodeOf(B)).heartbeat_at) > before);
    expect(Date.parse(b.started_at)).toBeLessThanOrEqual(before);
  });

  it('drains and undrains a node by its URL-encoded id; draining twice keeps the first time', async () => {
    const path = `/v1/admin/nodes/${encodeURIComponent(B)}`;
    const drained = await first.request('POST', `${path}/drain`, { token: operator });
    expect(drained.status).toBe(200);
    expect(drained.body).toMatchObject({ id: B, state: 'draining', alive: true });
    expect(Date.parse(drained.body.drained_at)).toBeGreaterThan(0);
    const again = await first.request('POST', `${path}/drain`, { token: operator });
    expect(again.body).toMatchObject({ state: 'draining', drained_at: drained.body.drained_at });
    expect(await nodeOf(B)).toMatchObject({ state: 'draining' });
    // The heartbeat leaves the operator's decision alone.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await nodeOf(B)).toMatchObject({ state: 'draining', alive: true });
    expect(await second.services.nodes.service.workers()).toEqual(expect.arrayContaining([expect.objectContaining({ id: B, state: 'draining' })]));
    const undrained = await first.request('POST', `${path}/undrain`, { token: operator });
    expect(undrained.status).toBe(200);
    expect(undrained.body).toMatchObject({ id: B, state: 'active', drained_at: null });
  });

  it("the SDK's admin.nodes lists, drains and undrains (the id encoded in the path)", async () => {
    const paddock = new Paddock({ url: first.url, apiKey: operator });
    expect((await paddock.admin.nodes.list()).map((node) => node.id)).toEqual([A, B]);
    expect(await paddock.admin.nodes.drain(A)).toMatchObject({ id: A, state: 'draining' });
    expect(await paddock.admin.nodes.undrain(A)).toMatchObject({ id: A, state: 'active' });
    expect(await paddock.admin.nodes.drain('nobody:/nowhere').catch((error: unknown) => error)).toBeInstanceOf(NotFoundError);
  });

  it('answers 403 operator_only to a non-operator, 404 node_not_found for an unknown id, 400 for an over-long one', async () => {
    for (const [method, path] of [
      ['GET', '/v1/admin/nodes'],
      ['POST', `/v1/admin/nodes/${encodeURIComponent(A)}/drain`],
      ['POST', `/v1/admin/nodes/${encodeURIComponent(A)}/undrain`],
    ]) {
      const reply = await first.request(method, path, { token: member });
      expect({ path, status: reply.status, code: reply.body.code }).toEqual({ path, status: 403, code: 'operator_only' });
    }
    const unknown = await first.request('POST', `/v1/admin/nodes/${encodeURIComponent('nobody:/nowhere')}/drain`, { token: operator });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('node_not_found');
    const tooLong = await first.request('POST', `/v1/admin/nodes/${'x'.repeat(201)}/drain`, { token: operator });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body).toMatchObject({ code: 'invalid_field', field: 'params.id' });
    expect((await first.request('GET', '/v1/admin/nodes')).status).toBe(401);
  });

  it('a node whose row was declared lost meanwhile (its epoch moved on) registers again with a newer epoch', async () => {
    const before = await nodeOf(B);
    // What a sweeper on another node does: one conditional update, epoch + 1.
    await first.storage.db
      .updateTable('nodes')
      .set({ state: 'lost', lost_at: new Date().toISOString(), epoch: before.epoch + 1 })
      .where('id', '=', B)
      .execute();
    const back = await waitFor('node B to register again', async () => {
      const node = await nodeOf(B);
      return node.state === 'active' && node;
    });
    expect(back).toMatchObject({ epoch: before.epoch + 2, lost_at: null, alive: true });
    expect(second.services.nodes.heartbeat.currentEpoch).toBe(before.epoch + 2);
    expect(fs.readFileSync(second.logFile, 'utf8')).toContain('this node was declared lost');
  });

  it('a clean close leaves the node stopped (not alive, never declared lost); a stopped node cannot be drained (409)', async () => {
    await second.close({ keepData: backend === 'sqlite' });
    const stopped = await nodeOf(B);
    expect(stopped).toMatchObject({ state: 'stopped', alive: false, lost_at: null });
    const refused = await first.request('POST', `/v1/admin/nodes/${encodeURIComponent(B)}/drain`, { token: operator });
    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('node_state_conflict');
    expect(await first.services.nodes.service.workers()).toEqual([expect.objectContaining({ id: A })]);
    // Restarted on the same id: a new epoch, active again.
    second =
      backend === 'postgres'
        ? await startApp(backend, { ...FAST, PADDOCK_HOST_ID: B, DATABASE_URL: first.databaseUrl! })
        : await startApp(backend, { ...FAST, PADDOCK_HOST_ID: B }, { reuse: { dataDir: first.dataDir, databaseUrl: null } });
    expect(await nodeOf(B)).toMatchObject({ state: 'active', epoch: stopped.epoch + 1, alive: true });
  });
});
