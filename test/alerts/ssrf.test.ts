// With private targets not allowed (the default), notification URLs that point inside the network are
// refused: literal addresses when the config is saved, host names when a delivery resolves them. The
// refusal is a failed delivery with the reason, and the receiver is never called.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { startHttpReceiver, type HttpReceiver } from '../helpers/receivers.js';
import { waitFor } from '../helpers/wait-for.js';

describe.each(BACKENDS)('outbound guard on %s', (backend) => {
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

  it.each([
    'https://127.0.0.1/hook',
    'https://127.1.2.3:8443/hook',
    'https://10.0.0.5/hook',
    'https://172.20.1.1/hook',
    'https://192.168.1.10/hook',
    'https://169.254.169.254/latest/meta-data/',
    'https://100.64.0.1/hook',
    'https://0.0.0.0/hook',
    'https://224.0.0.1/hook',
    'https://[::1]/hook',
    'https://[::]/hook',
    'https://[fe80::1]/hook',
    'https://[fd00::1]/hook',
    'https://[::ffff:127.0.0.1]/hook',
    'https://[::ffff:169.254.169.254]/hook',
    'https://2130706433/hook',
    'https://0x7f.0.0.1/hook',
    'https://017700000001/hook',
  ])('refuses to save %s', async (url) => {
    const { key } = await t.signup();
    for (const channels of [{ webhook: { url } }, { chat_a: { webhook_url: url } }, { chat_b: { webhook_url: url } }]) {
      const reply = await t.request('PUT', '/v1/notifications/config', { token: key, body: { channels } });
      expect(reply.status).toBe(400);
      expect(reply.body.error).toMatch(/^body\.channels\.\w+\.(url|webhook_url) points to the non-public address .+PADDOCK_ALLOW_PRIVATE_WEBHOOKS/);
    }
  });

  it('refuses plain http unless the operator allows it', async () => {
    const { key } = await t.signup();
    const reply = await t.request('PUT', '/v1/notifications/config', { token: key, body: { channels: { webhook: { url: 'http://hooks.example.com/x' } } } });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toContain('body.channels.webhook.url must be an https:// URL (set PADDOCK_ALLOW_HTTP_WEBHOOKS=true');
  });

  it('refuses at delivery a host name that resolves to a loopback address, without calling it', async () => {
    const { key, account } = await t.signup();
    const url = `https://localhost:${receiver.port}/hook`;
    const saved = await t.request('PUT', '/v1/notifications/config', { token: key, body: { channels: { webhook: { enabled: true, url }, chat_a: { enabled: true, webhook_url: url } } } });
    expect(saved.status).toBe(200);
    const alert = await t.services.alerts.raise({ accountId: account.id, type: 'sandbox_error', resource: { kind: 'sandbox', id: 'sbx_ssrf' }, sandboxId: 'sbx_ssrf', message: 'boom' });
    expect(alert).not.toBeNull();
    const deliveries = await waitFor('refused deliveries', async () => {
      const list = (await t.request('GET', '/v1/notifications/deliveries', { token: key })).body;
      return list.length === 2 && list.every((d: any) => d.status === 'failed') ? list : null;
    });
    for (const delivery of deliveries) {
      expect(delivery.attempts).toBe(1);
      expect(delivery.last_error).toMatch(
        /^refused: the target URL has host localhost, which resolves to the non-public address (127\.0\.0\.1|::1) \(loopback\); set PADDOCK_ALLOW_PRIVATE_WEBHOOKS=true/,
      );
      expect(delivery.attempt_history).toEqual([expect.objectContaining({ outcome: 'failed', status_code: null })]);
    }
    expect(receiver.requests).toHaveLength(0);
  });
});
