// In-app notifications and the notification config through the API: every raised alert creates one;
// unread filter and count, read and read-all; the config's defaults, merging updates and validation.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';

describe.each(BACKENDS)('notifications on %s', (backend) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp(backend);
  });
  afterAll(async () => {
    await t?.close();
  });

  const raise = (accountId: string, sandboxId: string) =>
    t.services.alerts.raise({ accountId, type: 'sandbox_error', resource: { kind: 'sandbox', id: sandboxId }, sandboxId, message: `sandbox ${sandboxId} failed` });
  const nextMillisecond = () => new Promise((resolve) => setTimeout(resolve, 2));

  it('creates one unread notification per raised alert', async () => {
    const { key, account } = await t.signup();
    const alert = await raise(account.id, 'sbx_n1');
    const list = await t.request('GET', '/v1/notifications', { token: key });
    expect(list.status).toBe(200);
    expect(list.body).toHaveLength(1);
    expect(list.body[0]).toMatchObject({
      alert_id: alert!.id,
      type: 'sandbox_error',
      severity: 'error',
      title: 'Sandbox error',
      message: 'sandbox sbx_n1 failed',
      sandbox_id: 'sbx_n1',
      read: false,
      read_at: null,
    });
    expect(list.body[0].id).toMatch(/^ntf_/);
    const one = await t.request('GET', `/v1/notifications/${list.body[0].id}`, { token: key });
    expect(one.body).toMatchObject({ ...list.body[0], deliveries: [] });
  });

  it('counts unread, filters, pages, marks one read and all read', async () => {
    const { key, account } = await t.signup();
    for (let i = 0; i < 4; i++) {
      await raise(account.id, `sbx_${i}`);
      await nextMillisecond();
    }
    const count = async () => (await t.request('GET', '/v1/notifications/unread-count', { token: key })).body;
    expect(await count()).toEqual({ count: 4 });

    const all = (await t.request('GET', '/v1/notifications', { token: key })).body;
    expect(all.map((n: any) => n.sandbox_id)).toEqual(['sbx_3', 'sbx_2', 'sbx_1', 'sbx_0']);
    const read = await t.request('POST', `/v1/notifications/${all[1].id}/read`, { token: key });
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id: all[1].id, read: true });
    expect(read.body.read_at).toEqual(expect.any(String));
    const again = await t.request('POST', `/v1/notifications/${all[1].id}/read`, { token: key });
    expect(again.body.read_at).toBe(read.body.read_at);
    expect(await count()).toEqual({ count: 3 });

    const unread = await t.request('GET', '/v1/notifications?unread=true', { token: key });
    expect(unread.body.map((n: any) => n.sandbox_id)).toEqual(['sbx_3', 'sbx_1', 'sbx_0']);
    expect(unread.headers.get('x-total-count')).toBe('3');
    expect((await t.request('GET', '/v1/notifications?unread=false', { token: key })).body.map((n: any) => n.id)).toEqual([all[1].id]);
    const page = await t.request('GET', '/v1/notifications?limit=2&offset=1', { token: key });
    expect(page.body.map((n: any) => n.sandbox_id)).toEqual(['sbx_2', 'sbx_1']);
    expect(page.headers.get('x-total-count')).toBe('4');
    expect((await t.request('GET', '/v1/notifications?type=sandbox_error&limit=1', { token: key })).body).toHaveLength(1);
    expect((await t.request('GET', '/v1/notifications?type=budget_warning', { token: key })).body).toEqual([]);

    const all$ = await t.request('POST', '/v1/notifications/read-all', { token: key });
    expect(all$.status).toBe(200);
    expect(all$.body).toEqual({ marked_read: 3 });
    expect(await count()).toEqual({ count: 0 });
    expect((await t.request('POST', '/v1/notifications/read-all', { token: key })).body).toEqual({ marked_read: 0 });
    expect((await t.request('GET', '/v1/notifications?unread=true', { token: key })).body).toEqual([]);
  });

  it("keeps accounts apart: 404 for another account's notification, counts of one's own", async () => {
    const owner = await t.signup();
    const stranger = await t.signup();
    await raise(owner.account.id, 'sbx_o');
    const [notification] = (await t.request('GET', '/v1/notifications', { token: owner.key })).body;
    expect((await t.request('GET', `/v1/notifications/${notification.id}`, { token: stranger.key })).status).toBe(404);
    expect((await t.request('POST', `/v1/notifications/${notification.id}/read`, { token: stranger.key })).status).toBe(404);
    expect((await t.request('POST', '/v1/notifications/ntf_nothing/read', { token: owner.key })).status).toBe(404);
    expect((await t.request('POST', '/v1/notifications/read-all', { token: stranger.key })).body).toEqual({ marked_read: 0 });
    expect((await t.request('GET', '/v1/notifications/unread-count', { token: owner.key })).body).toEqual({ count: 1 });
    expect((await t.request('GET', '/v1/notifications/deliveries/dlv_nothing', { token: owner.key })).status).toBe(404);
  });

  it.each([
    ['/v1/notifications?unread=perhaps', 'query.unread'],
    ['/v1/notifications?limit=500', 'query.limit'],
    ['/v1/notifications?offset=x', 'query.offset'],
    ['/v1/notifications?page=2', 'query.page'],
    ['/v1/notifications/deliveries?status=lost', 'query.status'],
    ['/v1/notifications/deliveries?channel=sms', 'query.channel'],
    ['/v1/notifications/deliveries?limit=0', 'query.limit'],
  ])('answers 400 for GET %s naming %s', async (path, field) => {
    const { key } = await t.signup();
    const reply = await t.request('GET', path, { token: key });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toContain(field);
  });
});

describe.each(BACKENDS)('notification config on %s', (backend) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp(backend);
  });
  afterAll(async () => {
    await t?.close();
  });

  const getConfig = async (key: string) => (await t.request('GET', '/v1/notifications/config', { token: key })).body;
  const putConfig = (key: string, channels: unknown) => t.request('PUT', '/v1/notifications/config', { token: key, body: { channels } });

  it('starts with every channel disabled and a generated Standard Webhooks secret', async () => {
    const { key } = await t.signup();
    const config = await getConfig(key);
    expect(config.channels).toEqual({
      email: { enabled: false, address: null },
      chat_a: { enabled: false, webhook_url: null },
      chat_b: { enabled: false, webhook_url: null },
      webhook: { enabled: false, url: null, secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) },
    });
    expect((await getConfig(key)).channels.webhook.secret).toBe(config.channels.webhook.secret);
    const other = await t.signup();
    expect((await getConfig(other.key)).channels.webhook.secret).not.toBe(config.channels.webhook.secret);
  });

  it('merges updates channel by channel and answers the whole config', async () => {
    const { key } = await t.signup();
    const before = await getConfig(key);
    const reply = await putConfig(key, { email: { enabled: true, address: 'ops@example.com' }, chat_a: { webhook_url: 'https://hooks.example.com/services/T0/B0/x' } });
    expect(reply.status).toBe(200);
    expect(reply.body.channels).toEqual({
      email: { enabled: true, address: 'ops@example.com' },
      chat_a: { enabled: false, webhook_url: 'https://hooks.example.com/services/T0/B0/x' },
      chat_b: { enabled: false, webhook_url: null },
      webhook: { enabled: false, url: null, secret: before.channels.webhook.secret },
    });
    await putConfig(key, {
      chat_a: { enabled: true },
      chat_b: { enabled: true, webhook_url: 'https://discord.example.com/api/webhooks/1/abc' },
      webhook: { enabled: true, url: 'https://receiver.example.com/paddock' },
    });
    const after = await getConfig(key);
    expect(after.channels.email).toEqual({ enabled: true, address: 'ops@example.com' });
    expect(after.channels.chat_a.enabled).toBe(true);
    expect(after.channels.chat_b).toEqual({ enabled: true, webhook_url: 'https://discord.example.com/api/webhooks/1/abc' });
    expect(after.channels.webhook).toMatchObject({ enabled: true, url: 'https://receiver.example.com/paddock' });

    // Disabling keeps the target; clearing a disabled channel's target is allowed.
    await putConfig(key, { email: { enabled: false } });
    expect((await getConfig(key)).channels.email).toEqual({ enabled: false, address: 'ops@example.com' });
    await putConfig(key, { email: { address: null } });
    expect((await getConfig(key)).channels.email).toEqual({ enabled: false, address: null });
  });

  it('rotates the webhook secret or takes one the user brings', async () => {
    const { key } = await t.signup();
    const before = (await getConfig(key)).channels.webhook.secret;
    const rotated = (await putConfig(key, { webhook: { rotate_secret: true } })).body.channels.webhook.secret;
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(before);
    const own = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    expect((await putConfig(key, { webhook: { secret: own } })).body.channels.webhook.secret).toBe(own);
  });

  it.each([
    [{ email: { enabled: true } }, 'body.channels.email.address is required to enable email'],
    [{ chat_a: { enabled: true } }, 'body.channels.chat_a.webhook_url is required to enable chat_a'],
    [{ chat_b: { enabled: true, webhook_url: null } }, 'body.channels.chat_b.webhook_url is required to enable chat_b'],
    [{ webhook: { enabled: true } }, 'body.channels.webhook.url is required to enable webhook'],
    [{ email: { address: 'not an address' } }, 'body.channels.email.address'],
    [{ email: { address: 'a@b@c' } }, 'body.channels.email.address'],
    [{ email: { address: 42 } }, 'body.channels.email.address'],
    [{ chat_a: { webhook_url: 'hooks.example.com/x' } }, 'body.channels.chat_a.webhook_url is not a valid URL'],
    [{ chat_a: { webhook_url: 'ftp://hooks.example.com/x' } }, 'body.channels.chat_a.webhook_url must be an https:// URL'],
    [{ chat_b: { webhook_url: 'http://hooks.example.com/x' } }, 'body.channels.chat_b.webhook_url must be an https:// URL'],
    [{ webhook: { url: 'javascript:alert(1)' } }, 'body.channels.webhook.url must be an https:// URL'],
    [{ webhook: { url: 'https://user:pw@example.com/' } }, 'body.channels.webhook.url must not contain a user name or password'],
    [{ webhook: { url: `https://example.com/${'x'.repeat(2100)}` } }, 'body.channels.webhook.url'],
    [{ webhook: { secret: 'whsec_c2hvcnQ=' } }, 'body.channels.webhook.secret must be whsec_'],
    [{ webhook: { secret: 'plain' } }, 'body.channels.webhook.secret'],
    [{ webhook: { secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', rotate_secret: true } }, 'body.channels.webhook.rotate_secret cannot be combined with secret'],
    [{ sms: { enabled: true } }, 'body.channels.sms is not a known field'],
    [{ email: { enabled: 'yes' } }, 'body.channels.email.enabled'],
    [{ email: { enabled: true, address: 'a@example.com', cc: 'b@example.com' } }, 'body.channels.email.cc is not a known field'],
  ])('refuses %j with 400 and changes nothing', async (channels, message) => {
    const { key } = await t.signup();
    const before = await getConfig(key);
    const reply = await putConfig(key, channels);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toContain(message);
    expect(await getConfig(key)).toEqual(before);
  });

  it('refuses a body without channels', async () => {
    const { key } = await t.signup();
    expect((await t.request('PUT', '/v1/notifications/config', { token: key, body: {} })).body.error).toContain('body.channels is required');
    expect((await t.request('PUT', '/v1/notifications/config', { token: key })).status).toBe(400);
  });
});
