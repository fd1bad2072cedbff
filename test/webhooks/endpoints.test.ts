// Webhook endpoints as the API manages them, with the server's default outbound policy (https only, no
// private targets): create with a secret answered once, list, get, change, rotate, delete; every bad
// input a 400 naming the field; the per-account quota; full-scope keys only; another account's
// endpoints are not found; a host name that resolves to loopback is refused again at delivery.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { startHttpReceiver, type HttpReceiver } from '../helpers/receivers.js';
import { waitFor } from '../helpers/wait-for.js';

const URL_OK = 'https://hooks.example.com/paddock';
const OWN_SECRET = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;

describe.each(BACKENDS)('webhook endpoints on %s', (backend) => {
  let t: TestApp;
  let receiver: HttpReceiver;

  beforeAll(async () => {
    receiver = await startHttpReceiver();
    t = await startApp(backend, { PADDOCK_OUTBOX_POLL_INTERVAL_MS: '50', PADDOCK_OUTBOX_BACKOFF_BASE_MS: '50' });
  });
  afterAll(async () => {
    await t?.close();
    await receiver?.close();
  });

  const create = (key: string, body: Record<string, unknown>) => t.request('POST', '/v1/webhooks', { token: key, body });

  it('creates an endpoint with a generated secret shown once, then lists and gets it without the secret', async () => {
    const { key } = await t.signup();
    const created = await create(key, { url: URL_OK, events: ['pipeline.run.completed', 'sandbox.error', 'pipeline.run.completed'], description: 'ci' });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ url: URL_OK, events: ['pipeline.run.completed', 'sandbox.error'], description: 'ci', enabled: true });
    expect(created.body.id).toMatch(/^whe_/);
    expect(created.body.secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(Buffer.from(created.body.secret.slice(6), 'base64')).toHaveLength(32);

    const got = await t.request('GET', `/v1/webhooks/${created.body.id}`, { token: key });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ ...created.body, secret: undefined, updated_at: created.body.updated_at });
    expect(got.text).not.toContain(created.body.secret);
    const list = await t.request('GET', '/v1/webhooks', { token: key });
    expect(list.body.map((e: any) => e.id)).toEqual([created.body.id]);
    expect(list.text).not.toContain('whsec_');
  });

  it('takes a secret of the caller, "*" for every event type, and enabled: false', async () => {
    const { key } = await t.signup();
    const created = await create(key, { url: URL_OK, events: ['*'], secret: OWN_SECRET, enabled: false });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ events: ['*'], enabled: false, secret: OWN_SECRET, description: null });
  });

  it.each([
    [{ url: 'not a url', events: ['*'] }, 'body.url', /body\.url is not a valid URL/],
    [{ url: 'https://10.0.0.5/hook', events: ['*'] }, 'body.url', /body\.url points to the non-public address 10\.0\.0\.5 .*PADDOCK_ALLOW_PRIVATE_WEBHOOKS/],
    [{ url: 'https://[::1]/hook', events: ['*'] }, 'body.url', /non-public address ::1/],
    [{ url: 'http://hooks.example.com/x', events: ['*'] }, 'body.url', /must be an https:\/\/ URL \(set PADDOCK_ALLOW_HTTP_WEBHOOKS=true/],
    [
      { url: URL_OK, events: ['pipeline.run.created', 'sandbox.exploded'] },
      'body.events[1]',
      /body\.events\[1\] is not an event type: "sandbox\.exploded" \(one of sandbox\.created, .*pipeline\.stage\.failed, or "\*" for all\)/,
    ],
    [{ url: URL_OK, events: [] }, 'body.events', /body\.events/],
    [{ url: URL_OK }, 'body.events', /body\.events is required/],
    [{ url: URL_OK, events: ['*'], secret: 'hunter2' }, 'body.secret', /body\.secret/],
    [{ url: URL_OK, events: ['*'], secret: `whsec_${Buffer.alloc(8).toString('base64')}` }, 'body.secret', /body\.secret must be whsec_ followed by the base64 encoding of 24 to 64 bytes/],
    [{ url: URL_OK, events: ['*'], colour: 'blue' }, 'body.colour', /body\.colour is not a known field/],
  ])('refuses %j with a 400 naming the field', async (body, field, message) => {
    const { key } = await t.signup();
    const reply = await create(key, body);
    expect(reply.status, reply.text).toBe(400);
    expect(reply.body.code).toBe('invalid_field');
    expect(reply.body.field).toBe(field);
    expect(reply.body.error).toMatch(message);
    expect((await t.request('GET', '/v1/webhooks', { token: key })).body).toEqual([]);
  });

  it('changes url, events, description and enabled, and rotates the secret (answered once)', async () => {
    const { key } = await t.signup();
    const created = (await create(key, { url: URL_OK, events: ['*'] })).body;
    const changed = await t.request('PATCH', `/v1/webhooks/${created.id}`, {
      token: key,
      body: { url: 'https://other.example.com/h', events: ['pipeline.stage.failed'], description: 'on call', enabled: false },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.body).toMatchObject({ id: created.id, url: 'https://other.example.com/h', events: ['pipeline.stage.failed'], description: 'on call', enabled: false });
    expect(changed.body.secret).toBeUndefined();
    const rotated = await t.request('PATCH', `/v1/webhooks/${created.id}`, { token: key, body: { rotate_secret: true } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.secret);
    const own = await t.request('PATCH', `/v1/webhooks/${created.id}`, { token: key, body: { secret: OWN_SECRET, description: null } });
    expect(own.body).toMatchObject({ description: null, url: 'https://other.example.com/h' });
    expect(own.body.secret).toBeUndefined();
  });

  it.each([
    [{}, 'body', /body names nothing to change/],
    [{ secret: OWN_SECRET, rotate_secret: true }, 'body.rotate_secret', /cannot be combined with secret/],
    [{ events: ['pipeline.run.cancelled'] }, 'body.events[0]', /is not an event type/],
    [{ url: 'https://192.168.1.1/x' }, 'body.url', /non-public address/],
    [{ enabled: 'yes' }, 'body.enabled', /body\.enabled must be a boolean/],
  ])('refuses the change %j with a 400 and keeps the endpoint', async (body, field, message) => {
    const { key } = await t.signup();
    const created = (await create(key, { url: URL_OK, events: ['*'] })).body;
    const reply = await t.request('PATCH', `/v1/webhooks/${created.id}`, { token: key, body });
    expect(reply.status, reply.text).toBe(400);
    expect(reply.body.field).toBe(field);
    expect(reply.body.error).toMatch(message);
    expect((await t.request('GET', `/v1/webhooks/${created.id}`, { token: key })).body).toMatchObject({ url: URL_OK, events: ['*'], enabled: true });
  });

  it('deletes an endpoint; then it is not found', async () => {
    const { key } = await t.signup();
    const created = (await create(key, { url: URL_OK, events: ['*'] })).body;
    expect((await t.request('DELETE', `/v1/webhooks/${created.id}`, { token: key })).status).toBe(204);
    expect((await t.request('GET', `/v1/webhooks/${created.id}`, { token: key })).status).toBe(404);
    expect((await t.request('DELETE', `/v1/webhooks/${created.id}`, { token: key })).status).toBe(404);
  });

  it("answers 404 for another account's endpoint on every operation", async () => {
    const owner = await t.signup();
    const other = await t.signup();
    const created = (await create(owner.key, { url: URL_OK, events: ['*'] })).body;
    for (const [method, path, body] of [
      ['GET', `/v1/webhooks/${created.id}`],
      ['PATCH', `/v1/webhooks/${created.id}`, { enabled: false }],
      ['POST', `/v1/webhooks/${created.id}/test`],
      ['GET', `/v1/webhooks/${created.id}/deliveries`],
      ['DELETE', `/v1/webhooks/${created.id}`],
    ] as const) {
      const reply = await t.request(method, path, { token: other.key, ...(body ? { body } : {}) });
      expect(reply.status, `${method} ${path}`).toBe(404);
      expect(reply.body).toMatchObject({ code: 'not_found', error: 'webhook endpoint not found' });
    }
    expect((await t.request('GET', '/v1/webhooks', { token: other.key })).body).toEqual([]);
    expect((await t.request('GET', `/v1/webhooks/${created.id}`, { token: owner.key })).body.enabled).toBe(true);
  });

  it('holds at most 20 endpoints per account (403 quota_exceeded)', async () => {
    const { key } = await t.signup();
    for (let i = 0; i < 20; i++) expect((await create(key, { url: `${URL_OK}/${i}`, events: ['*'] })).status).toBe(201);
    const refused = await create(key, { url: `${URL_OK}/20`, events: ['*'] });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: 'quota_exceeded', error: 'an account can have 20 webhook endpoints; delete one first' });
    expect((await t.request('GET', '/v1/webhooks', { token: key })).body).toHaveLength(20);
  });

  it('is for full-scope keys only: the secret is a credential', async () => {
    const { key } = await t.signup();
    const created = (await create(key, { url: URL_OK, events: ['*'] })).body;
    for (const scope of ['sandbox', 'read']) {
      const narrow = (await t.request('POST', '/v1/account/keys', { token: key, body: { name: scope, scope } })).body.key;
      for (const [method, path] of [
        ['GET', '/v1/webhooks'],
        ['GET', `/v1/webhooks/${created.id}`],
        ['POST', '/v1/webhooks'],
        ['GET', `/v1/webhooks/${created.id}/deliveries`],
      ]) {
        const reply = await t.request(method, path, { token: narrow, ...(method === 'POST' ? { body: { url: URL_OK, events: ['*'] } } : {}) });
        expect(reply.status, `${scope} ${method} ${path}`).toBe(403);
        expect(reply.body.code).toBe('scope_denied');
      }
    }
  });

  it('refuses at delivery a host name that resolves to loopback, without calling it', async () => {
    const { key } = await t.signup();
    const created = (await create(key, { url: `https://localhost:${receiver.port}/hook`, events: ['*'] })).body;
    const queued = await t.request('POST', `/v1/webhooks/${created.id}/test`, { token: key });
    expect(queued.status, queued.text).toBe(202);
    const [delivery] = await waitFor('the refused delivery', async () => {
      const list = (await t.request('GET', `/v1/webhooks/${created.id}/deliveries`, { token: key })).body;
      return list[0]?.status === 'failed' ? list : null;
    });
    expect(delivery).toMatchObject({ id: queued.body.id, attempts: 1, response_status: null });
    expect(delivery.last_error).toMatch(/^refused: the target URL .*(loopback|non-public)/);
    expect(receiver.requests).toHaveLength(0);
  });
});
