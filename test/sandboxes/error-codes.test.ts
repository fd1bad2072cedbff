// Error codes where a sandbox is involved (runc, both databases): a 403 for scope is told apart from a
// 403 for the plan's limit, and state conflicts, foreign sandboxes and bad fields carry their codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type Reply, type TestApp } from '../helpers/app.js';

const TEMPLATE = 'python-311';
const SMALL = { template: TEMPLATE, network_mode: 'none', cpus: 1, memory_mb: 128, disk_gb: 1 };

function expectCode(reply: Reply, status: number, code: string, field?: string) {
  expect({ status: reply.status, code: reply.body?.code, field: reply.body?.field }).toEqual({ status, code, field });
  expect(typeof reply.body.error).toBe('string');
}

describe.each(BACKENDS)('sandbox error codes on runc with %s', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(backend, {}, { runtime: 'runc' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers 403 scope_denied to a read key and 403 plan_limit over the free plan, with their own codes', async () => {
    const { key } = await t.signupOnPlan('free');
    const readKey = (await t.request('POST', '/v1/account/keys', { token: key, body: { name: 'r', scope: 'read' } })).body.key;
    const denied = await t.request('POST', '/v1/sandboxes', { token: readKey, body: SMALL });
    expectCode(denied, 403, 'scope_denied');

    const created = await Promise.all([0, 1, 2].map(() => t.request('POST', '/v1/sandboxes', { token: key, body: SMALL })));
    expect(created.map((r) => r.status).sort()).toEqual([201, 201, 403]);
    const limited = created.find((r) => r.status === 403)!;
    expectCode(limited, 403, 'plan_limit');
    expect(limited.body.error).toMatch(/free plan allows 2 concurrent sandboxes/);

    const running = created.find((r) => r.status === 201)!.body.id;
    expectCode(await t.request('GET', `/v1/sandboxes/${running}/terminal`, { token: key }), 426, 'upgrade_required');
    const stranger = (await t.signup()).key;
    expectCode(await t.request('GET', `/v1/sandboxes/${running}`, { token: stranger }), 404, 'not_found');
    expectCode(await t.request('POST', `/v1/sandboxes/${running}/exec`, { token: stranger, body: { command: 'true' } }), 404, 'not_found');

    expect((await t.request('DELETE', `/v1/sandboxes/${running}`, { token: key })).status).toBe(204);
    expectCode(await t.request('POST', `/v1/sandboxes/${running}/pause`, { token: key }), 409, 'sandbox_not_running');
  });

  it('names the field at fault, from the request schema and from the service', async () => {
    const { key } = await t.signup();
    expectCode(await t.request('POST', '/v1/sandboxes', { token: key, body: { ...SMALL, template: 5 } }), 400, 'invalid_field', 'body.template');
    expectCode(await t.request('POST', '/v1/sandboxes', { token: key, body: { ...SMALL, network_mode: 'allowlist' } }), 400, 'invalid_field', 'body.allowlist');
    expectCode(await t.request('POST', '/v1/sandboxes', { token: key, body: { ...SMALL, surprise: 1 } }), 400, 'invalid_field', 'body.surprise');
  });
});
