import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';

describe.each(BACKENDS)('accounts on %s', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(backend);
  });
  afterAll(async () => {
    await t.close();
  });

  it('signs up and returns the account with a first full-scope key', async () => {
    const reply = await t.request('POST', '/signup', { body: { email: 'Ada@Example.com', password: 'correct horse', name: 'Ada' } });
    expect(reply.status).toBe(201);
    expect(reply.body.account).toMatchObject({ email: 'Ada@Example.com', name: 'Ada', plan: 'free' });
    expect(reply.body.account.id).toMatch(/^acc_[0-9a-z]{26}$/);
    expect(new Date(reply.body.account.created_at).toISOString()).toBe(reply.body.account.created_at);
    expect(reply.body.api_key).toMatch(/^svc_sk_[A-Za-z0-9]{43}$/);

    const keys = await t.request('GET', '/v1/account/keys', { token: reply.body.api_key });
    expect(keys.status).toBe(200);
    expect(keys.body).toHaveLength(1);
    expect(keys.body[0]).toMatchObject({ scope: 'full', name: 'default' });
    expect(keys.text).not.toContain(reply.body.api_key);
  });

  it('rejects an email already registered in another letter case with 409', async () => {
    await t.signup({ email: 'grace@example.com' });
    const reply = await t.request('POST', '/signup', { body: { email: 'GRACE@example.COM', password: 'another password' } });
    expect(reply.status).toBe(409);
    expect(reply.body.error).toMatch(/already exists/);
  });

  it('rejects an invalid email and a short password with 400 naming the field', async () => {
    const badEmail = await t.request('POST', '/signup', { body: { email: 'not-an-email', password: 'long enough' } });
    expect(badEmail.status).toBe(400);
    expect(badEmail.body.error).toContain('body.email');
    const shortPassword = await t.request('POST', '/signup', { body: { email: 'short@example.com', password: 'short' } });
    expect(shortPassword.status).toBe(400);
    expect(shortPassword.body.error).toContain('body.password');
  });

  it('stores only a memory-hard hash of the password', async () => {
    const { account, password } = await t.signup();
    const row = await t.storage.db.selectFrom('accounts').selectAll().where('id', '=', account.id).executeTakeFirstOrThrow();
    expect(row.password_hash).toMatch(/^scrypt\$131072\$8\$1\$/);
    expect(row.password_hash).not.toContain(password);
  });

  it('logs in and the session token works as a bearer credential', async () => {
    const { email, password, account } = await t.signup();
    const login = await t.request('POST', '/login', { body: { email: email.toUpperCase(), password } });
    expect(login.status).toBe(200);
    expect(login.body.token).toMatch(/^svc_ds_/);
    expect(new Date(login.body.expires_at).getTime()).toBeGreaterThan(Date.now());
    expect(login.body.account.id).toBe(account.id);
    const me = await t.request('GET', '/v1/account', { token: login.body.token });
    expect(me.status).toBe(200);
    expect(me.body).toEqual(account);
  });

  it('answers wrong password and unknown email with the same 401', async () => {
    const { email } = await t.signup();
    const wrong = await t.request('POST', '/login', { body: { email, password: 'wrong password' } });
    const unknown = await t.request('POST', '/login', { body: { email: 'nobody@example.com', password: 'wrong password' } });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body).toEqual(unknown.body);
  });

  it('returns the authenticated account', async () => {
    const { key, account } = await t.signup({ name: 'Linus' });
    const me = await t.request('GET', '/v1/account', { token: key });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ id: account.id, email: account.email, name: 'Linus', plan: 'free', created_at: account.created_at });
  });

  it('answers 401 without a key or with an unknown key', async () => {
    expect((await t.request('GET', '/v1/account')).status).toBe(401);
    expect((await t.request('GET', '/v1/account', { token: 'svc_sk_' + 'a'.repeat(43) })).status).toBe(401);
    expect((await t.request('GET', '/v1/account', { headers: { authorization: 'Basic abc' } })).status).toBe(401);
  });
});

describe.each(BACKENDS)('login throttling on %s', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(backend, { PADDOCK_LOGIN_MAX_FAILURES: '3', PADDOCK_LOGIN_FAILURE_WINDOW_SECONDS: '600' });
  });
  afterAll(async () => {
    await t.close();
  });

  it('refuses further attempts for an email after repeated failures, even with the right password', async () => {
    const { email, password } = await t.signup();
    for (let i = 0; i < 3; i++) expect((await t.request('POST', '/login', { body: { email, password: `wrong-${i}-password` } })).status).toBe(401);
    const blocked = await t.request('POST', '/login', { body: { email, password } });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another email is unaffected.
    const other = await t.signup();
    expect((await t.request('POST', '/login', { body: { email: other.email, password: other.password } })).status).toBe(200);
  });
});
