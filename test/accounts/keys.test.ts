import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(BACKENDS)('API keys on %s', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(backend);
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates a key shown once, lists it without its value, and stores only a digest', async () => {
    const { key } = await t.signup();
    const created = await t.request('POST', '/v1/account/keys', { token: key, body: { name: 'ci', scope: 'sandbox' } });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'ci', scope: 'sandbox', last_used_at: null, expires_at: null });
    expect(created.body.id).toMatch(/^key_/);
    expect(created.body.key).toMatch(/^svc_sk_[A-Za-z0-9]{43}$/);
    expect(created.body.key.startsWith(created.body.prefix)).toBe(true);

    const list = await t.request('GET', '/v1/account/keys', { token: key });
    expect(list.body.map((k: any) => k.name)).toEqual(['default', 'ci']);
    expect(list.text).not.toContain(created.body.key);
    expect(Object.keys(list.body[1]).sort()).toEqual(['created_at', 'expires_at', 'id', 'last_used_at', 'name', 'prefix', 'scope']);

    const rows = await t.storage.db.selectFrom('api_keys').select(['key_hash']).execute();
    for (const row of rows) expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(rows)).not.toContain(created.body.key);
  });

  it('defaults the scope to full', async () => {
    const { key } = await t.signup();
    const created = await t.request('POST', '/v1/account/keys', { token: key, body: { name: 'all' } });
    expect(created.body.scope).toBe('full');
  });

  it('records last_used_at when a key is used', async () => {
    const { key } = await t.signup();
    const created = await t.request('POST', '/v1/account/keys', { token: key, body: { name: 'used' } });
    await t.request('GET', '/v1/account', { token: created.body.key });
    await sleep(100);
    const list = await t.request('GET', '/v1/account/keys', { token: key });
    const used = list.body.find((k: any) => k.id === created.body.id);
    expect(used.last_used_at).not.toBeNull();
  });

  it('revokes a key: 204, then 401 with it, and it is no longer listed', async () => {
    const { key } = await t.signup();
    const created = await t.request('POST', '/v1/account/keys', { token: key, body: { name: 'temp' } });
    expect((await t.request('GET', '/v1/account', { token: created.body.key })).status).toBe(200);
    expect((await t.request('DELETE', `/v1/account/keys/${created.body.id}`, { token: key })).status).toBe(204);
    expect((await t.request('GET', '/v1/account', { token: created.body.key })).status).toBe(401);
    const list = await t.request('GET', '/v1/account/keys', { token: key });
    expect(list.body.map((k: any) => k.id)).not.toContain(created.body.id);
    expect((await t.request('DELETE', `/v1/account/keys/${created.body.id}`, { token: key })).status).toBe(404);
  });

  it("answers 404 when revoking another account's key, and leaves it working", async () => {
    const alice = await t.signup();
    const bob = await t.signup();
    const bobKeys = await t.request('GET', '/v1/account/keys', { token: bob.key });
    expect((await t.request('DELETE', `/v1/account/keys/${bobKeys.body[0].id}`, { token: alice.key })).status).toBe(404);
    expect((await t.request('GET', '/v1/account', { token: bob.key })).status).toBe(200);
  });

  it('rejects an expired key with 401', async () => {
    const { key } = await t.signup();
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const created = await t.request('POST', '/v1/account/keys', { token: key, body: { name: 'short', expires_at: expiresAt } });
    expect(created.status).toBe(201);
    expect(created.body.expires_at).toBe(expiresAt);
    expect((await t.request('GET', '/v1/account', { token: created.body.key })).status).toBe(200);
    await sleep(1600);
    expect((await t.request('GET', '/v1/account', { token: created.body.key })).status).toBe(401);
  });

  it('rejects an expiry in the past with 400', async () => {
    const { key } = await t.signup();
    const reply = await t.request('POST', '/v1/account/keys', { token: key, body: { name: 'old', expires_at: '2020-01-01T00:00:00Z' } });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toContain('body.expires_at');
  });

  it('enforces scopes from route metadata: sandbox and read keys cannot manage the account', async () => {
    const { key } = await t.signup();
    const sandbox = (await t.request('POST', '/v1/account/keys', { token: key, body: { name: 's', scope: 'sandbox' } })).body.key;
    const read = (await t.request('POST', '/v1/account/keys', { token: key, body: { name: 'r', scope: 'read' } })).body.key;
    for (const token of [sandbox, read]) {
      expect((await t.request('GET', '/v1/account', { token })).status).toBe(403);
      expect((await t.request('GET', '/v1/account/keys', { token })).status).toBe(403);
      const mint = await t.request('POST', '/v1/account/keys', { token, body: { name: 'wider', scope: 'full' } });
      expect(mint.status).toBe(403);
      expect(mint.body.error).toMatch(/cannot/);
    }
    const keys = await t.request('GET', '/v1/account/keys', { token: key });
    expect(keys.body).toHaveLength(3);
  });
});
