// The sandbox lifecycle through the public API on real sandboxes: every edge the API can reach leaves
// its event on GET /v1/sandboxes/{id}/events (oldest first, paginated, read scope, 404 for another
// account), refused edges answer 409 with their code, pause and resume of a sandbox already there stay
// idempotent (200, no event), and every event type appears on a timeline.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_EVENT_TYPES } from '../../src/core/events/published.js';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/wait-for.js';

const TEMPLATE = 'python-311';
// One vCPU costs 1 $ per second, so a 0.6 $ budget is crossed within a second of running.
const RATES = { PADDOCK_COMPUTE_USD_PER_VCPU_HOUR: '3600', PADDOCK_COMPUTE_USD_PER_GIB_HOUR: '0' };
const COMBOS = [
  ['runc', 'sqlite'],
  ['runc', 'postgres'],
  ['gvisor', 'sqlite'],
] as const;

describe.each(COMBOS)('sandbox lifecycle events with %s on %s', (runtime, backend) => {
  let t: TestApp;
  let key: string;
  let readKey: string;
  let otherKey: string;
  const seen = new Set<string>();

  beforeAll(async () => {
    t = await startApp(backend, RATES, { runtime });
    key = (await t.signupOnPlan('team')).key;
    readKey = (await t.request('POST', '/v1/account/keys', { token: key, body: { name: 'reader', scope: 'read' } })).body.key;
    otherKey = (await t.signup()).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  const create = async (body: object = {}) => {
    const reply = await t.request('POST', '/v1/sandboxes', { token: key, body: { template: TEMPLATE, network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1, ...body } });
    expect(reply.status).toBe(201);
    return reply.body.id as string;
  };
  const status = async (id: string) => (await t.request('GET', `/v1/sandboxes/${id}`, { token: key })).body.status as string;
  const events = async (id: string, query = '', token = key) => {
    const reply = await t.request('GET', `/v1/sandboxes/${id}/events${query}`, { token });
    expect(reply.status).toBe(200);
    for (const event of reply.body) seen.add(event.type);
    return reply.body as Array<{ id: string; type: string; at: string; from: string | null; to: string | null; data: Record<string, unknown> }>;
  };
  const edges = async (id: string) => (await events(id)).map((e) => `${e.type} ${e.from}→${e.to}`);

  it('records created (running at once), paused, resumed and destroyed, oldest first; pause and resume stay idempotent', async () => {
    const id = await create();
    const [created] = await events(id);
    expect(created).toMatchObject({ type: 'sandbox.created', from: 'creating', to: 'running', data: { template: TEMPLATE, runtime, warm: false, setup_steps: 0 } });
    expect(created.id).toMatch(/^evt_/);
    expect(created.data.duration_ms).toBeGreaterThanOrEqual(0);

    expect((await t.request('POST', `/v1/sandboxes/${id}/pause`, { token: key })).status).toBe(200);
    expect((await t.request('POST', `/v1/sandboxes/${id}/pause`, { token: key })).status).toBe(200);
    expect((await t.request('POST', `/v1/sandboxes/${id}/resume`, { token: key })).status).toBe(200);
    expect((await t.request('POST', `/v1/sandboxes/${id}/resume`, { token: key })).status).toBe(200);
    expect((await t.request('DELETE', `/v1/sandboxes/${id}`, { token: key })).status).toBe(204);
    expect((await t.request('DELETE', `/v1/sandboxes/${id}`, { token: key })).status).toBe(204);

    const timeline = await events(id);
    expect(timeline.map((e) => `${e.type} ${e.from}→${e.to}`)).toEqual([
      'sandbox.created creating→running',
      'sandbox.paused running→paused',
      'sandbox.resumed paused→running',
      'sandbox.destroyed running→destroyed',
    ]);
    expect(timeline[1].data).toMatchObject({ reason: 'request' });
    expect(timeline[3].data).toMatchObject({ reason: 'deleted' });
    expect(timeline[3].data.duration_ms).toBeGreaterThanOrEqual(0);
    const times = timeline.map((e) => Date.parse(e.at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);

    // Paginated; read keys see it; another account's sandbox and an unknown one are 404; bad paging is a 400.
    expect((await events(id, '?limit=2')).map((e) => e.type)).toEqual(['sandbox.created', 'sandbox.paused']);
    expect((await events(id, '?limit=2&offset=2')).map((e) => e.type)).toEqual(['sandbox.resumed', 'sandbox.destroyed']);
    expect(await events(id, '', readKey)).toEqual(timeline);
    expect((await t.request('GET', `/v1/sandboxes/${id}/events`, { token: otherKey })).status).toBe(404);
    expect((await t.request('GET', '/v1/sandboxes/sbx_missing/events', { token: key })).status).toBe(404);
    const bad = await t.request('GET', `/v1/sandboxes/${id}/events?limit=0`, { token: key });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatch(/limit/);
    expect((await t.request('GET', `/v1/sandboxes/${id}/events`)).status).toBe(401);
  });

  it('refuses edges the status does not allow with 409 and records nothing', async () => {
    const id = await create();
    expect((await t.request('DELETE', `/v1/sandboxes/${id}`, { token: key })).status).toBe(204);
    const pause = await t.request('POST', `/v1/sandboxes/${id}/pause`, { token: key });
    expect(pause.status).toBe(409);
    expect(pause.body).toMatchObject({ code: 'sandbox_not_running' });
    expect(pause.body.error).toMatch(/sandbox is destroyed; only a running sandbox can be paused/);
    const resume = await t.request('POST', `/v1/sandboxes/${id}/resume`, { token: key });
    expect(resume.status).toBe(409);
    expect(resume.body).toMatchObject({ code: 'sandbox_not_paused' });
    expect(resume.body.error).toMatch(/sandbox is destroyed; only a paused sandbox can be resumed/);

    // A paused sandbox cannot take a restore (running → restoring only).
    const target = await create();
    const snapshot = await t.request('POST', `/v1/sandboxes/${target}/snapshots`, { token: key, body: { name: 'before' } });
    expect(snapshot.status).toBe(201);
    expect((await t.request('POST', `/v1/sandboxes/${target}/pause`, { token: key })).status).toBe(200);
    const restore = await t.request('POST', `/v1/snapshots/${snapshot.body.id}/restore`, { token: key, body: { sandbox_id: target } });
    expect(restore.status).toBe(409);
    expect(restore.body).toMatchObject({ code: 'sandbox_not_running' });
    expect(restore.body.error).toMatch(/sandbox is paused; a snapshot restores only into a running sandbox \(resume it first\)/);
    expect(await edges(target)).toEqual(['sandbox.created creating→running', 'sandbox.paused running→paused']);
    expect(await edges(id)).toEqual(['sandbox.created creating→running', 'sandbox.destroyed running→destroyed']);
  });

  it('records restoring and restored with the snapshot id', async () => {
    const id = await create();
    const snapshot = await t.request('POST', `/v1/sandboxes/${id}/snapshots`, { token: key, body: { name: 'point' } });
    expect(snapshot.status).toBe(201);
    expect((await t.request('POST', `/v1/snapshots/${snapshot.body.id}/restore`, { token: key, body: { sandbox_id: id } })).status).toBe(200);
    const timeline = await events(id);
    expect(timeline.map((e) => `${e.type} ${e.from}→${e.to}`)).toEqual(['sandbox.created creating→running', 'sandbox.restoring running→restoring', 'sandbox.restored restoring→running']);
    expect(timeline[1].data).toEqual({ snapshot_id: snapshot.body.id });
    expect(timeline[2].data).toEqual({ snapshot_id: snapshot.body.id });
  });

  it('records set-up: created while creating, then running; a failed step is an error with its reason', async () => {
    const ok = await create({ init_script: 'echo ready > /workspace/ready' });
    await waitFor('set-up', async () => ((await status(ok)) === 'running' ? true : null), 60_000);
    const timeline = await events(ok);
    expect(timeline.map((e) => `${e.type} ${e.from}→${e.to}`)).toEqual(['sandbox.created creating→creating', 'sandbox.running creating→running']);
    expect(timeline[0].data).toMatchObject({ setup_steps: 1 });
    expect(timeline[1].data.duration_ms).toBeGreaterThanOrEqual(timeline[0].data.duration_ms as number);

    const failing = await create({ init_script: 'echo broken >&2; exit 3' });
    await waitFor('set-up to fail', async () => ((await status(failing)) === 'error' ? true : null), 60_000);
    const failed = await events(failing);
    expect(failed.map((e) => `${e.type} ${e.from}→${e.to}`)).toEqual(['sandbox.created creating→creating', 'sandbox.error creating→error']);
    expect(failed[1].data.reason).toMatch(/init_script exited with 3: broken/);
    // An ended sandbox cannot be paused; it can still be destroyed.
    expect((await t.request('POST', `/v1/sandboxes/${failing}/pause`, { token: key })).status).toBe(409);
    expect((await t.request('DELETE', `/v1/sandboxes/${failing}`, { token: key })).status).toBe(204);
    expect((await events(failing)).at(-1)).toMatchObject({ type: 'sandbox.destroyed', from: 'error', to: 'destroyed', data: { reason: 'deleted' } });
  });

  it('records an idle pause with its reason', async () => {
    const id = await create({ timeout: 2 });
    await waitFor('the idle timeout', async () => ((await status(id)) === 'paused' ? true : null), 15_000);
    expect((await events(id)).at(-1)).toMatchObject({ type: 'sandbox.paused', from: 'running', to: 'paused', data: { reason: 'idle_timeout' } });
  });

  it('records budget thresholds (no status change) and the budget destroy with its reason', async () => {
    const id = await create({ budget: 0.6 });
    await waitFor('the budget destroy', async () => ((await status(id)) === 'destroyed' ? true : null), 20_000);
    const timeline = await events(id);
    const thresholds = timeline.filter((e) => e.type === 'sandbox.budget_threshold');
    expect(thresholds.map((e) => e.data.threshold)).toEqual(['budget_warning', 'budget_critical']);
    for (const event of thresholds) expect(event).toMatchObject({ from: null, to: null, data: { budget: 0.6 } });
    expect(timeline.at(-1)).toMatchObject({ type: 'sandbox.destroyed', from: 'running', to: 'destroyed', data: { reason: 'budget_exceeded' } });
  });

  it('has shown every event type', () => {
    expect([...seen].sort()).toEqual([...SANDBOX_EVENT_TYPES].sort());
  });
});
