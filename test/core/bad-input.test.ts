// Malformed requests to every route of the foundation: each gets the right 4xx, never a 5xx, and
// nothing is stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type RequestOptions, type TestApp } from '../helpers/app.js';

type Case = [label: string, method: string, path: string, options: RequestOptions & { auth?: boolean }, status: number, mentions?: string];

const long = (n: number) => 'a'.repeat(n);

const signupCases: Case[] = [
  ['signup without body', 'POST', '/signup', {}, 400, 'body'],
  ['signup with empty object', 'POST', '/signup', { body: {} }, 400, 'body.email'],
  ['signup without password', 'POST', '/signup', { body: { email: 'a@example.com' } }, 400, 'body.password'],
  ['signup without email', 'POST', '/signup', { body: { password: 'long enough' } }, 400, 'body.email'],
  ['signup with numeric email', 'POST', '/signup', { body: { email: 12345, password: 'long enough' } }, 400, 'body.email'],
  ['signup with null email', 'POST', '/signup', { body: { email: null, password: 'long enough' } }, 400, 'body.email'],
  ['signup with array email', 'POST', '/signup', { body: { email: ['a@example.com'], password: 'long enough' } }, 400, 'body.email'],
  ['signup with object password', 'POST', '/signup', { body: { email: 'a@example.com', password: { x: 1 } } }, 400, 'body.password'],
  ['signup with 7-char password', 'POST', '/signup', { body: { email: 'a@example.com', password: '1234567' } }, 400, 'body.password'],
  ['signup with huge password', 'POST', '/signup', { body: { email: 'a@example.com', password: long(5000) } }, 400, 'body.password'],
  ['signup with huge email', 'POST', '/signup', { body: { email: `${long(300)}@example.com`, password: 'long enough' } }, 400, 'body.email'],
  ['signup with no @', 'POST', '/signup', { body: { email: 'example.com', password: 'long enough' } }, 400, 'body.email'],
  ['signup with SQL in email', 'POST', '/signup', { body: { email: "x'; drop table accounts;--", password: 'long enough' } }, 400, 'body.email'],
  ['signup with shell in email', 'POST', '/signup', { body: { email: '$(rm -rf /)@x', password: 'long enough' } }, 400, 'body.email'],
  ['signup with unknown field', 'POST', '/signup', { body: { email: 'a@example.com', password: 'long enough', admin: true } }, 400, 'body.admin'],
  ['signup with plan field', 'POST', '/signup', { body: { email: 'a@example.com', password: 'long enough', plan: 'enterprise' } }, 400, 'body.plan'],
  ['signup with null name', 'POST', '/signup', { body: { email: 'a@example.com', password: 'long enough', name: null } }, 400, 'body.name'],
  ['signup with empty name', 'POST', '/signup', { body: { email: 'a@example.com', password: 'long enough', name: '' } }, 400, 'body.name'],
  ['signup with huge name', 'POST', '/signup', { body: { email: 'a@example.com', password: 'long enough', name: long(1000) } }, 400, 'body.name'],
  ['signup with array body', 'POST', '/signup', { body: [{ email: 'a@example.com', password: 'long enough' }] }, 400, 'body'],
  ['signup with string body', 'POST', '/signup', { raw: '"hello"' }, 400, 'body'],
  ['signup with number body', 'POST', '/signup', { raw: '42' }, 400, 'body'],
  ['signup with truncated JSON', 'POST', '/signup', { raw: '{"email":' }, 400, 'JSON'],
  ['signup with form encoding', 'POST', '/signup', { raw: 'email=a', contentType: 'application/x-www-form-urlencoded' }, 415],
  ['signup with text/plain', 'POST', '/signup', { raw: '{}', contentType: 'text/plain' }, 415],
  ['signup with __proto__', 'POST', '/signup', { raw: '{"email":"a@example.com","password":"long enough","__proto__":{"admin":true}}' }, 400],
  ['signup with unicode email', 'POST', '/signup', { body: { email: '💥@💥', password: 'long enough' } }, 400, 'body.email'],
];

const loginCases: Case[] = [
  ['login without body', 'POST', '/login', {}, 400, 'body'],
  ['login without password', 'POST', '/login', { body: { email: 'a@example.com' } }, 400, 'body.password'],
  ['login with numeric password', 'POST', '/login', { body: { email: 'a@example.com', password: 12345678 } }, 400, 'body.password'],
  ['login with null email', 'POST', '/login', { body: { email: null, password: 'x' } }, 400, 'body.email'],
  ['login with extra field', 'POST', '/login', { body: { email: 'a@example.com', password: 'xxxxxxxx', remember: true } }, 400, 'body.remember'],
  ['login with SQL', 'POST', '/login', { body: { email: "' or 1=1 --", password: "' or 1=1 --" } }, 401],
  ['login with huge email', 'POST', '/login', { body: { email: long(10_000), password: 'xxxxxxxx' } }, 400, 'body.email'],
];

const keyCases: Case[] = [
  ['create key without body', 'POST', '/v1/account/keys', { auth: true }, 400, 'body'],
  ['create key without name', 'POST', '/v1/account/keys', { auth: true, body: {} }, 400, 'body.name'],
  ['create key with empty name', 'POST', '/v1/account/keys', { auth: true, body: { name: '' } }, 400, 'body.name'],
  ['create key with numeric name', 'POST', '/v1/account/keys', { auth: true, body: { name: 7 } }, 400, 'body.name'],
  ['create key with huge name', 'POST', '/v1/account/keys', { auth: true, body: { name: long(500) } }, 400, 'body.name'],
  ['create key with unknown scope', 'POST', '/v1/account/keys', { auth: true, body: { name: 'x', scope: 'admin' } }, 400, 'body.scope'],
  ['create key with scope array', 'POST', '/v1/account/keys', { auth: true, body: { name: 'x', scope: ['full'] } }, 400, 'body.scope'],
  ['create key with bad expiry', 'POST', '/v1/account/keys', { auth: true, body: { name: 'x', expires_at: 'tomorrow' } }, 400, 'body.expires_at'],
  ['create key with numeric expiry', 'POST', '/v1/account/keys', { auth: true, body: { name: 'x', expires_at: 1893456000 } }, 400, 'body.expires_at'],
  ['create key with past expiry', 'POST', '/v1/account/keys', { auth: true, body: { name: 'x', expires_at: '2001-01-01T00:00:00Z' } }, 400, 'body.expires_at'],
  ['create key with extra field', 'POST', '/v1/account/keys', { auth: true, body: { name: 'x', key: 'svc_sk_chosen' } }, 400, 'body.key'],
  ['create key with null body fields', 'POST', '/v1/account/keys', { auth: true, body: { name: null } }, 400, 'body.name'],
  ['create key without credential', 'POST', '/v1/account/keys', { body: { name: 'x' } }, 401],
  ['create key with malformed header', 'POST', '/v1/account/keys', { headers: { authorization: 'Bearer' }, body: { name: 'x' } }, 401],
  ['create key with wrong-prefix key', 'POST', '/v1/account/keys', { headers: { authorization: 'Bearer sk_live_123' }, body: { name: 'x' } }, 401],
  ['revoke unknown key', 'DELETE', '/v1/account/keys/key_doesnotexist', { auth: true }, 404],
  ['revoke with SQL id', 'DELETE', "/v1/account/keys/1'%20or%20'1'='1", { auth: true }, 404],
  ['revoke with huge id', 'DELETE', `/v1/account/keys/${long(500)}`, { auth: true }, 414],
  ['list keys without credential', 'GET', '/v1/account/keys', {}, 401],
  ['account with unknown key', 'GET', '/v1/account', { headers: { authorization: `Bearer svc_sk_${long(43)}` } }, 401],
];

const ALL = [...signupCases, ...loginCases, ...keyCases];

describe.each(BACKENDS)('bad input on %s', (backend) => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await startApp(backend);
    key = (await t.signup()).key;
  });
  afterAll(async () => {
    await t.close();
  });

  it('has at least 40 cases', () => {
    expect(ALL.length).toBeGreaterThanOrEqual(40);
  });

  it.each(ALL)('%s → %i', async (_label, method, path, options, status, mentions) => {
    const before = await counts(t);
    const reply = await t.request(method, path, { ...options, token: options.auth ? key : undefined });
    expect(reply.status).toBe(status);
    expect(typeof reply.body.error).toBe('string');
    if (mentions) expect(reply.body.error).toContain(mentions);
    expect(await counts(t)).toEqual(before);
  });
});

async function counts(t: TestApp) {
  const count = async (table: 'accounts' | 'api_keys' | 'dashboard_sessions') =>
    Number(
      (
        await t.storage.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return { accounts: await count('accounts'), keys: await count('api_keys'), sessions: await count('dashboard_sessions') };
}
