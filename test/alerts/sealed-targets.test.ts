// Delivery targets at rest: a chat webhook URL is the credential that posts to the channel, so the
// notification config stores chat URLs sealed, and the outbox stores every delivery's target sealed;
// the API and the deliveries still answer and use the URLs as given. Values an earlier version stored
// in plain text are sealed when a server starts, and still deliver.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { BACKENDS } from '../helpers/backends.js';
import { startHttpReceiver, type HttpReceiver } from '../helpers/receivers.js';
import { waitFor } from '../helpers/wait-for.js';

const ENV = { PADDOCK_ALLOW_PRIVATE_WEBHOOKS: 'true', PADDOCK_ALLOW_HTTP_WEBHOOKS: 'true', PADDOCK_OUTBOX_POLL_INTERVAL_MS: '50' };

describe.each(BACKENDS)('delivery targets at rest on %s', (backend) => {
  let t: TestApp;
  let chat: HttpReceiver;

  beforeAll(async () => {
    chat = await startHttpReceiver();
    t = await startApp(backend, ENV);
  });
  afterAll(async () => {
    await t?.close();
    await chat?.close();
  });

  const raise = (accountId: string, sandboxId: string) =>
    t.services.alerts.raise({ accountId, type: 'sandbox_error', resource: { kind: 'sandbox', id: sandboxId }, sandboxId, message: `sandbox ${sandboxId} failed`, details: {} });

  async function storedConfig(accountId: string) {
    return t.storage.db.selectFrom('notification_configs').select(['chat_a_webhook_url', 'chat_b_webhook_url']).where('account_id', '=', accountId).executeTakeFirstOrThrow();
  }

  async function storedTargets(accountId: string) {
    return (await t.storage.db.selectFrom('outbox').select(['id', 'kind', 'target']).where('account_id', '=', accountId).execute()).sort((a, b) => a.kind.localeCompare(b.kind));
  }

  async function deliveredTo(key: string, count: number) {
    return waitFor(`${count} delivered`, async () => {
      const list = (await t.request('GET', '/v1/notifications/deliveries?status=delivered', { token: key })).body;
      return list.length >= count ? list : null;
    });
  }

  it('stores chat URLs and delivery targets sealed, and answers and delivers to the URLs as given', async () => {
    const { key, account } = await t.signup();
    const chatA = `${chat.url}/services/T1/B1/${account.id}-a`;
    const chatB = `${chat.url}/api/webhooks/1/${account.id}-b`;
    const saved = await t.request('PUT', '/v1/notifications/config', {
      token: key,
      body: { channels: { chat_a: { enabled: true, webhook_url: chatA }, chat_b: { enabled: true, webhook_url: chatB }, email: { enabled: true, address: 'ops@example.com' } } },
    });
    expect(saved.status, saved.text).toBe(200);
    expect(saved.body.channels.chat_a.webhook_url).toBe(chatA);

    const config = await storedConfig(account.id);
    expect(config.chat_a_webhook_url).toMatch(/^sealed:v1:/);
    expect(config.chat_b_webhook_url).toMatch(/^sealed:v1:/);
    expect(JSON.stringify(config)).not.toContain(account.id);
    const answered = (await t.request('GET', '/v1/notifications/config', { token: key })).body.channels;
    expect([answered.chat_a.webhook_url, answered.chat_b.webhook_url]).toEqual([chatA, chatB]);

    await raise(account.id, 'sbx_sealed');
    const delivered = await deliveredTo(key, 2);
    expect(delivered.map((d: any) => [d.channel, d.target]).sort()).toEqual([
      ['chat_a', chatA],
      ['chat_b', chatB],
    ]);
    const paths = chat.requests.map((request) => request.path);
    expect(paths).toContain(new URL(chatA).pathname);
    expect(paths).toContain(new URL(chatB).pathname);

    const targets = await storedTargets(account.id);
    expect(targets.map((row) => row.kind)).toEqual(['notification.chat_a', 'notification.chat_b', 'notification.email']);
    for (const row of targets) expect(row.target).toMatch(/^sealed:v1:/);
    expect(JSON.stringify(targets)).not.toContain(account.id);
    expect(JSON.stringify(targets)).not.toContain('ops@example.com');
    // Bound to its row: a sealed target copied onto another delivery does not open there.
    const [a, b] = targets;
    await t.storage.db.updateTable('outbox').set({ target: a.target }).where('id', '=', b.id).execute();
    const moved = await t.request('GET', `/v1/notifications/deliveries/${b.id}`, { token: key });
    expect(moved.status).toBe(500);
    await t.storage.db.updateTable('outbox').set({ target: b.target }).where('id', '=', b.id).execute();
    expect((await t.request('GET', `/v1/notifications/deliveries/${b.id}`, { token: key })).body.target).toBe(chatB);
  });

  it('seals the chat URLs and targets an earlier version stored in plain text when the server starts, and still delivers to them', async () => {
    const { key, account } = await t.signup();
    const sealedUrl = `${chat.url}/services/T2/B2/${account.id}-sealed`;
    expect((await t.request('PUT', '/v1/notifications/config', { token: key, body: { channels: { chat_a: { enabled: true, webhook_url: sealedUrl } } } })).status).toBe(200);
    await raise(account.id, 'sbx_before');
    const [first] = await deliveredTo(key, 1);
    // As a version before sealing wrote them: the config's URL, and a delivery waiting for its next attempt.
    const plainUrl = `${chat.url}/services/T2/B2/${account.id}-plain`;
    const later = new Date(Date.now() + 3_600_000).toISOString();
    await t.storage.db.updateTable('notification_configs').set({ chat_a_webhook_url: plainUrl }).where('account_id', '=', account.id).execute();
    await t.storage.db.updateTable('outbox').set({ target: plainUrl, status: 'pending', next_attempt_at: later }).where('id', '=', first.id).execute();
    expect((await t.request('GET', '/v1/notifications/config', { token: key })).body.channels.chat_a.webhook_url).toBe(plainUrl);

    const reuse = { dataDir: t.dataDir, databaseUrl: t.databaseUrl };
    await t.close({ keepData: true });
    t = await startApp(backend, ENV, { reuse });
    expect((await storedConfig(account.id)).chat_a_webhook_url).toMatch(/^sealed:v1:/);
    const [target] = await storedTargets(account.id);
    expect(target.target).toMatch(/^sealed:v1:/);
    expect(JSON.stringify(await storedConfig(account.id)) + target.target).not.toContain(account.id);
    expect((await t.request('GET', '/v1/notifications/config', { token: key })).body.channels.chat_a.webhook_url).toBe(plainUrl);

    const plainPath = new URL(plainUrl).pathname;
    await t.storage.db.updateTable('outbox').set({ next_attempt_at: new Date().toISOString() }).where('id', '=', first.id).execute();
    await waitFor('the waiting delivery, to its URL', () => chat.requests.find((request) => request.path === plainPath));
    await raise(account.id, 'sbx_after');
    await waitFor('a new alert, to the sealed URL', () => (chat.requests.filter((request) => request.path === plainPath).length === 2 ? true : null));
    expect((await t.request('GET', `/v1/notifications/deliveries/${first.id}`, { token: key })).body).toMatchObject({ target: plainUrl, status: 'delivered' });
  });
});
