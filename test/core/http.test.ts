import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';

describe.each(BACKENDS)('HTTP behaviour on %s', (backend) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startApp(backend);
    key = (await t.signup()).key;
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers an unknown route with a JSON 404', async () => {
    const reply = await t.request('GET', '/v1/nope', { token: key });
    expect(reply.status).toBe(404);
    expect(reply.headers.get('content-type')).toMatch(/application\/json/);
    expect(reply.body).toEqual({ error: 'no route for GET /v1/nope', code: 'not_found' });
  });

  it('answers malformed JSON with 400', async () => {
    const reply = await t.request('POST', '/signup', { raw: '{"email": "a@b.c", "password":' });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatch(/not valid JSON/);
  });

  it('answers a wrong content-type with 415', async () => {
    const reply = await t.request('POST', '/signup', { raw: 'email=a@b.c&password=12345678', contentType: 'application/x-www-form-urlencoded' });
    expect(reply.status).toBe(415);
    const plain = await t.request('POST', '/v1/account/keys', { token: key, raw: '{"name":"x"}', contentType: 'text/plain' });
    expect(plain.status).toBe(415);
  });

  it('answers a body over the limit with 413', async () => {
    const reply = await t.request('POST', '/signup', { body: { email: 'big@example.com', password: 'x'.repeat(2 * 1024 * 1024) } });
    expect(reply.status).toBe(413);
    expect(reply.body.error).toMatch(/too large/);
  });

  it('uses the coded error body on agent-delegation paths', async () => {
    const reply = await t.request('GET', '/v1/a2a/nothing-here', { token: key });
    expect(reply.status).toBe(404);
    expect(reply.body.error).toMatchObject({ code: 'not_found', details: {} });
    expect(typeof reply.body.error.message).toBe('string');
  });

  it('sends a request id on every response', async () => {
    const reply = await t.request('GET', '/healthz');
    expect(reply.headers.get('x-request-id')).toMatch(/^req_/);
  });

  it('serves /healthz and /readyz', async () => {
    expect((await t.request('GET', '/healthz')).body).toEqual({ status: 'ok' });
    const ready = await t.request('GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ok', storage: 'ok' });
  });

  it('publishes an OpenAPI 3.1 document of every route, and a docs page', async () => {
    const spec = await t.request('GET', '/openapi.json');
    expect(spec.status).toBe(200);
    expect(spec.body.openapi).toBe('3.1.0');
    for (const path of ['/signup', '/login', '/v1/account', '/v1/account/keys', '/v1/account/keys/{id}', '/healthz', '/readyz']) {
      expect(spec.body.paths).toHaveProperty([path]);
    }
    expect(spec.body.paths['/signup'].post.security).toEqual([]);
    expect(spec.body.paths['/v1/account'].get.security).toBeUndefined();
    expect(spec.body.components.securitySchemes.bearer.scheme).toBe('bearer');
    const docs = await t.request('GET', '/docs/');
    expect(docs.status).toBe(200);
    expect(docs.text).toMatch(/<html/i);
  });

  it('never answers 500 with internals', async () => {
    const reply = await t.request('GET', '/v1/account/keys/%ff', { token: key });
    expect(reply.status).toBeLessThan(500);
  });
});

describe.each(BACKENDS)('rate limits on %s', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(backend, { PADDOCK_RATE_LIMIT_FREE: '5', PADDOCK_RATE_LIMIT_PRO: '8', PADDOCK_RATE_LIMIT_OPEN: '4' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('limits an account by its plan and sends the headers on every response, errors included', async () => {
    const { key } = await t.signup();
    const nowSeconds = Math.floor(Date.now() / 1000);
    for (let i = 0; i < 5; i++) {
      const reply = await t.request('GET', '/v1/account', { token: key });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('x-ratelimit-limit')).toBe('5');
      expect(reply.headers.get('x-ratelimit-remaining')).toBe(String(4 - i));
      const reset = Number(reply.headers.get('x-ratelimit-reset'));
      expect(reset).toBeGreaterThanOrEqual(nowSeconds);
      expect(reset).toBeLessThanOrEqual(nowSeconds + 61);
    }
    const limited = await t.request('GET', '/v1/account', { token: key });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatch(/rate limit/);
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('counts per account, not per key, and gives each plan its own limit', async () => {
    const free = await t.signup();
    const pro = await t.signup();
    await t.storage.db.updateTable('accounts').set({ plan: 'pro' }).where('id', '=', pro.account.id).execute();
    const second = (await t.request('POST', '/v1/account/keys', { token: free.key, body: { name: 'two' } })).body.key;
    for (let i = 0; i < 4; i++) await t.request('GET', '/v1/account', { token: free.key });
    expect((await t.request('GET', '/v1/account', { token: second })).status).toBe(429);
    await new Promise((r) => setTimeout(r, 5_100)); // the credential cache holds the old plan for up to 5 s
    const reply = await t.request('GET', '/v1/account', { token: pro.key });
    expect(reply.headers.get('x-ratelimit-limit')).toBe('8');
  });

  it('limits open endpoints per client IP', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await t.request('POST', '/login', { body: { email: `x${i}@example.com`, password: 'whatever1' } })).status);
    expect(statuses.slice(-1)[0]).toBe(429);
  });
});
