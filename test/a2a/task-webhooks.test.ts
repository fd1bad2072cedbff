// Task webhooks through the real HTTP API on every backend: create (secret answered once, generated
// or the caller's), list, get, delete; every refusal with the agent-delegation error body (unknown
// event names by index, URLs refused by the outbound guard, the per-account quota, narrow keys,
// another account's webhook); and deliveries of real task changes to a real receiver, signed so the
// receiver can verify them, retried after a 500, refused at delivery for a name resolving to loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';

const URL_OK = 'https://hooks.example.com/paddock';

describe.each(BACKENDS)('task webhooks on %s', (backend) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp(backend);
  });
  afterAll(async () => {
    await t?.close();
  });

  const create = (key: string, body: unknown) => t.request('POST', '/v1/a2a/webhooks', { token: key, body });

  it('creates a webhook with a generated secret answered once, then lists and gets it without the secret', async () => {
    const { key } = await t.signup();
    const created = await create(key, { url: URL_OK, events: ['task.completed', 'task.failed', 'task.completed'] });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({ id: expect.stringMatching(/^twh_/), url: URL_OK, events: ['task.completed', 'task.failed'], secret: expect.stringMatching(/^a2awh_[0-9a-f]{64}$/), created_at: expect.any(String) });
    const listed = await t.request('GET', '/v1/a2a/webhooks', { token: key });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ webhooks: [{ id: created.body.id, url: URL_OK, events: ['task.completed', 'task.failed'], created_at: created.body.created_at }] });
    const got = await t.request('GET', `/v1/a2a/webhooks/${created.body.id}`, { token: key });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(listed.body.webhooks[0]);
    expect(got.text).not.toContain(created.body.secret);
  });

  it('takes the caller\'s secret and "*" for every event', async () => {
    const { key } = await t.signup();
    const created = await create(key, { url: URL_OK, events: ['*'], secret: 'my-own-secret-of-some-length' });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ events: ['*'], secret: 'my-own-secret-of-some-length' });
  });

  it('deletes a webhook (204); then it is not found', async () => {
    const { key } = await t.signup();
    const { id } = (await create(key, { url: URL_OK, events: ['task.running'] })).body;
    const deleted = await t.request('DELETE', `/v1/a2a/webhooks/${id}`, { token: key });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    for (const [method, path] of [
      ['GET', `/v1/a2a/webhooks/${id}`],
      ['DELETE', `/v1/a2a/webhooks/${id}`],
      ['GET', `/v1/a2a/webhooks/${id}/deliveries`],
    ]) {
      const reply = await t.request(method, path, { token: key });
      expect(reply.status, `${method} ${path}`).toBe(404);
      expect(reply.body).toEqual({ error: { code: 'not_found', message: 'task webhook not found', details: {} } });
    }
    expect((await t.request('GET', '/v1/a2a/webhooks', { token: key })).body).toEqual({ webhooks: [] });
  });

  it('answers 400 naming the field for bad input', async () => {
    const { key } = await t.signup();
    const cases: [unknown, string][] = [
      [{ events: ['task.completed'] }, 'body.url'],
      [{ url: URL_OK }, 'body.events'],
      [{ url: URL_OK, events: [] }, 'body.events'],
      [{ url: URL_OK, events: ['task.completed', 'task.exploded'] }, 'body.events[1]'],
      [{ url: URL_OK, events: ['pipeline.run.failed'] }, 'body.events[0]'],
      [{ url: 'not a url', events: ['*'] }, 'body.url'],
      [{ url: 'ftp://hooks.example.com/x', events: ['*'] }, 'body.url'],
      [{ url: 'http://hooks.example.com/x', events: ['*'] }, 'body.url'],
      [{ url: 'https://127.0.0.1/x', events: ['*'] }, 'body.url'],
      [{ url: 'https://10.1.2.3/x', events: ['*'] }, 'body.url'],
      [{ url: URL_OK, events: ['*'], secret: 'short' }, 'body.secret'],
      [{ url: URL_OK, events: ['*'], secret: 'has a space in it, long enough' }, 'body.secret'],
      [{ url: URL_OK, events: ['*'], color: 'red' }, 'body.color'],
    ];
    for (const [body, field] of cases) {
      const reply = await create(key, body);
      expect(reply.status, `${JSON.stringify(body)}: ${reply.text}`).toBe(400);
      expect(reply.body.error.code, reply.text).toMatch(/^invalid_(field|request)$/);
      expect(reply.body.error.message, reply.text).toContain(field);
    }
    const deliveries = (await create(key, { url: URL_OK, events: ['*'] })).body;
    for (const query of ['?status=lost', '?limit=0', '?limit=101', '?offset=-1', '?color=red']) {
      const reply = await t.request('GET', `/v1/a2a/webhooks/${deliveries.id}/deliveries${query}`, { token: key });
      expect(reply.status, `${query}: ${reply.text}`).toBe(400);
      expect(reply.body.error.message).toContain('query.');
    }
    expect((await t.request('GET', '/v1/a2a/webhooks', { token: key })).body.webhooks).toHaveLength(1);
  });

  it('answers 401 without a key', async () => {
    for (const [method, path] of [
      ['POST', '/v1/a2a/webhooks'],
      ['GET', '/v1/a2a/webhooks'],
      ['GET', '/v1/a2a/webhooks/twh_x'],
      ['DELETE', '/v1/a2a/webhooks/twh_x'],
      ['GET', '/v1/a2a/webhooks/twh_x/deliveries'],
    ]) {
      const reply = await t.request(method, path, method === 'POST' ? { body: { url: URL_OK, events: ['*'] } } : {});
      expect(reply.status, `${method} ${path}`).toBe(401);
      expect(reply.body.error.code).toBe('unauthorized');
    }
  });

  it('is for full-scope keys only (403 scope_denied): the secret is a credential', async () => {
    const { key } = await t.signup();
    const { id } = (await create(key, { url: URL_OK, events: ['*'] })).body;
    for (const scope of ['sandbox', 'read']) {
      const narrow = (await t.request('POST', '/v1/account/keys', { token: key, body: { name: scope, scope } })).body.key;
      for (const [method, path] of [
        ['POST', '/v1/a2a/webhooks'],
        ['GET', '/v1/a2a/webhooks'],
        ['GET', `/v1/a2a/webhooks/${id}`],
        ['DELETE', `/v1/a2a/webhooks/${id}`],
        ['GET', `/v1/a2a/webhooks/${id}/deliveries`],
      ]) {
        const reply = await t.request(method, path, { token: narrow, ...(method === 'POST' ? { body: { url: URL_OK, events: ['*'] } } : {}) });
        expect(reply.status, `${scope} ${method} ${path}`).toBe(403);
        expect(reply.body.error.code).toBe('scope_denied');
      }
    }
    expect((await t.request('GET', `/v1/a2a/webhooks/${id}`, { token: key })).status).toBe(200);
  });

  it("answers 404 for another account's webhook on every operation, and leaves it alone", async () => {
    const owner = (await t.signup()).key;
    const other = (await t.signup()).key;
    const { id } = (await create(owner, { url: URL_OK, events: ['*'] })).body;
    for (const [method, path] of [
      ['GET', `/v1/a2a/webhooks/${id}`],
      ['DELETE', `/v1/a2a/webhooks/${id}`],
      ['GET', `/v1/a2a/webhooks/${id}/deliveries`],
    ]) {
      const reply = await t.request(method, path, { token: other });
      expect(reply.status, `${method} ${path}`).toBe(404);
      expect(reply.body.error.code).toBe('not_found');
    }
    expect((await t.request('GET', '/v1/a2a/webhooks', { token: other })).body).toEqual({ webhooks: [] });
    expect((await t.request('GET', `/v1/a2a/webhooks/${id}`, { token: owner })).status).toBe(200);
  });

  it('holds at most 20 task webhooks per account (403 quota_exceeded)', async () => {
    const { key } = await t.signup();
    for (let i = 0; i < 20; i++) expect((await create(key, { url: `${URL_OK}/${i}`, events: ['*'] })).status).toBe(201);
    const refused = await create(key, { url: `${URL_OK}/20`, events: ['*'] });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: { code: 'quota_exceeded', message: 'an account can have 20 task webhooks; delete one first', details: {} } });
    expect((await t.request('GET', '/v1/a2a/webhooks', { token: key })).body.webhooks).toHaveLength(20);
  });
});

describe.each(BACKENDS)('task webhooks and the task stream under the account rate limit on %s', (backend) => {
  it('answer 429 rate_limited with the agent-delegation error body and Retry-After', async () => {
    const t = await startApp(backend, { PADDOCK_RATE_LIMIT_FREE: '4' });
    try {
      const { key } = await t.signup();
      const replies = [];
      for (let i = 0; i < 5; i++) replies.push(await t.request('GET', '/v1/a2a/webhooks', { token: key }));
      const limited = replies.at(-1)!;
      expect(limited.status).toBe(429);
      expect(limited.body.error.code).toBe('rate_limited');
      expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
      const stream = await t.request('GET', '/v1/a2a/tasks/tsk_any/stream', { token: key, headers: { accept: 'text/event-stream' } });
      expect(stream.status).toBe(429);
      expect(stream.body.error.code).toBe('rate_limited');
    } finally {
      await t.close();
    }
  });
});
