import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';

function cookieFrom(headers: Headers): string {
  const raw = headers.get('set-cookie') ?? '';
  return raw.split(';')[0];
}

describe.each(BACKENDS)('dashboard session cookie on %s', (backend) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp(backend);
  });
  afterAll(async () => {
    await t.close();
  });

  async function signIn() {
    const account = await t.signup();
    const reply = await t.request('POST', '/v1/dashboard/session', { body: { email: account.email, password: account.password } });
    expect(reply.status).toBe(200);
    const cookie = cookieFrom(reply.headers);
    t.secrets.add(cookie.split('=')[1]);
    return { account, cookie, csrf: reply.body.csrf_token as string, reply };
  }

  it('sets an HttpOnly, SameSite=Strict cookie and never returns the token in the body', async () => {
    const { reply, cookie } = await signIn();
    const setCookie = reply.headers.get('set-cookie')!;
    expect(setCookie).toMatch(/^paddock_session=svc_ds_[A-Za-z0-9]{43}; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+$/);
    expect(reply.text).not.toContain(cookie.split('=')[1]);
    expect(reply.body.account.email).toBeDefined();
    expect(reply.body.csrf_token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('answers a wrong password with the same 401 message as POST /login', async () => {
    const account = await t.signup();
    const viaDashboard = await t.request('POST', '/v1/dashboard/session', { body: { email: account.email, password: 'wrong password' } });
    const viaLogin = await t.request('POST', '/login', { body: { email: account.email, password: 'wrong password' } });
    expect(viaDashboard.status).toBe(401);
    expect(viaDashboard.body.error).toBe(viaLogin.body.error);
    expect(viaDashboard.headers.get('set-cookie')).toBeNull();
  });

  it('authenticates reads by the cookie and tells the page its account and CSRF token', async () => {
    const { cookie, csrf, account } = await signIn();
    const session = await t.request('GET', '/v1/dashboard/session', { headers: { cookie } });
    expect(session.status).toBe(200);
    expect(session.body).toMatchObject({ account: { email: account.email }, csrf_token: csrf });
    const sandboxesList = await t.request('GET', '/v1/account', { headers: { cookie } });
    expect(sandboxesList.status).toBe(200);
  });

  it('refuses a write carrying the cookie without the CSRF header (403 csrf_failed) and writes nothing', async () => {
    const { cookie, account } = await signIn();
    const forged = await t.request('POST', '/v1/account/keys', { headers: { cookie }, body: { name: 'forged', scope: 'read' } });
    expect(forged.status).toBe(403);
    expect(forged.body.code).toBe('csrf_failed');
    const wrong = await t.request('POST', '/v1/account/keys', { headers: { cookie, 'x-paddock-csrf': 'A'.repeat(43) }, body: { name: 'forged', scope: 'read' } });
    expect(wrong.status).toBe(403);
    const keys = await t.request('GET', '/v1/account/keys', { token: account.key });
    expect(keys.body.map((k: { name: string }) => k.name)).not.toContain('forged');
  });

  it('accepts a write carrying the cookie and the CSRF header', async () => {
    const { cookie, csrf } = await signIn();
    const created = await t.request('POST', '/v1/account/keys', { headers: { cookie, 'x-paddock-csrf': csrf }, body: { name: 'from dashboard', scope: 'read' } });
    expect(created.status).toBe(201);
    t.secrets.add(created.body.key);
  });

  it('signs out: the cookie is cleared and the session stops working at once', async () => {
    const { cookie } = await signIn();
    const out = await t.request('DELETE', '/v1/dashboard/session', { headers: { cookie } });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^paddock_session=; .*Max-Age=0/);
    const after = await t.request('GET', '/v1/dashboard/session', { headers: { cookie } });
    expect(after.status).toBe(200);
    expect(after.body).toEqual({ account: null, expires_at: null, csrf_token: null });
    const api = await t.request('GET', '/v1/account', { headers: { cookie } });
    expect(api.status).toBe(401);
  });

  it('answers a page without a session (or with an API key instead) as signed out, not as an error', async () => {
    const none = await t.request('GET', '/v1/dashboard/session');
    expect(none.status).toBe(200);
    expect(none.body.account).toBeNull();
    const account = await t.signup();
    const withKey = await t.request('GET', '/v1/dashboard/session', { headers: { cookie: `paddock_session=${account.key}` } });
    expect(withKey.body.csrf_token).toBeNull();
  });

  it('does not authenticate by the cookie when an Authorization header is sent', async () => {
    const { cookie } = await signIn();
    const reply = await t.request('GET', '/v1/account', { headers: { cookie, authorization: 'Bearer svc_sk_' + 'x'.repeat(43) } });
    expect(reply.status).toBe(401);
  });
});

describe('dashboard pages', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp('sqlite');
  });
  afterAll(async () => {
    await t.close();
  });

  it('serves the page at / and at every page URL with a strict Content-Security-Policy', async () => {
    for (const path of ['/', '/login', '/sandboxes', '/sandboxes/sbx_123/terminal', '/pipelines/pl_1', '/billing', '/settings/keys']) {
      const reply = await t.request('GET', path);
      expect(reply.status, path).toBe(200);
      expect(reply.headers.get('content-type')).toMatch(/^text\/html/);
      expect(reply.text).toContain('<div id="root">');
      const csp = reply.headers.get('content-security-policy')!;
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("frame-ancestors 'none'");
      expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    }
  });

  it('bundles every script and stylesheet (no other origin) and serves them cached for good', async () => {
    const index = await t.request('GET', '/');
    const assets = [...index.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]).filter((url) => url !== 'data:,');
    expect(assets.length).toBeGreaterThan(0);
    for (const url of assets) {
      expect(url.startsWith('/assets/'), url).toBe(true);
      const asset = await t.request('GET', url);
      expect(asset.status, url).toBe(200);
      expect(asset.headers.get('cache-control')).toContain('immutable');
      const compressed = await fetch(t.url + url, { headers: { 'accept-encoding': 'br' } });
      expect(compressed.headers.get('content-encoding'), url).toBe('br');
      expect(await compressed.text()).toBe(asset.text);
      expect(asset.text).not.toMatch(/https?:\/\/(?:cdn|unpkg|fonts\.)/);
    }
  });

  it('keeps JSON 404s for unknown paths and the API where it was', async () => {
    const unknown = await t.request('GET', '/no-such-page');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toBe('no route for GET /no-such-page');
    const openapi = await t.request('GET', '/openapi.json');
    expect(openapi.status).toBe(200);
    expect(Object.keys(openapi.body.paths)).not.toContain('/sandboxes');
    const login = await t.request('POST', '/login', { body: { email: 'nobody@example.com', password: 'x' } });
    expect(login.status).toBe(401);
    const missing = await t.request('GET', '/assets/nothing-here.js');
    expect(missing.status).toBe(404);
  });
});
