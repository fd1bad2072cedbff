// Channel deliveries end to end: an alert reaches a real SMTP server, Slack- and Discord-style chat
// receivers and a webhook receiver that checks the Standard Webhooks signature; failures are retried
// with backoff, each attempt visible through the API.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { startHttpReceiver, startSmtpReceiver, type HttpReceiver, type ReceivedRequest, type SmtpReceiver } from '../helpers/receivers.js';
import { waitFor } from '../helpers/wait-for.js';

const BACKOFF_BASE_MS = 200;

/** Standard Webhooks verification, written from the specification rather than taken from the product. */
function verifySignature(secret: string, request: ReceivedRequest): boolean {
  const id = request.headers['webhook-id'] as string;
  const timestamp = request.headers['webhook-timestamp'] as string;
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`).digest('base64');
  return (request.headers['webhook-signature'] as string).split(' ').includes(`v1,${expected}`);
}

describe.each(BACKENDS)('notification channels on %s', (backend) => {
  let t: TestApp;
  let smtp: SmtpReceiver;
  const receivers: HttpReceiver[] = [];

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    t = await startApp(backend, {
      SMTP_URL: smtp.url,
      PADDOCK_EMAIL_FROM: 'Paddock Alerts <alerts@paddock.test>',
      PADDOCK_ALLOW_PRIVATE_WEBHOOKS: 'true',
      PADDOCK_ALLOW_HTTP_WEBHOOKS: 'true',
      PADDOCK_OUTBOX_POLL_INTERVAL_MS: '50',
      PADDOCK_OUTBOX_BACKOFF_BASE_MS: String(BACKOFF_BASE_MS),
      PADDOCK_OUTBOX_MAX_ATTEMPTS: '3',
    });
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    for (const receiver of receivers) await receiver.close();
  });

  async function receiver(respond?: HttpReceiver['respond']) {
    const started = await startHttpReceiver(respond);
    receivers.push(started);
    return started;
  }

  const raise = (accountId: string, sandboxId: string, message = `sandbox ${sandboxId} failed`) =>
    t.services.alerts.raise({ accountId, type: 'sandbox_error', resource: { kind: 'sandbox', id: sandboxId }, sandboxId, message, details: { error: 'exit 137' } });

  async function settledDeliveries(key: string, notificationId: string, count: number) {
    return waitFor(`${count} settled deliveries`, async () => {
      const list = (await t.request('GET', `/v1/notifications/deliveries?notification_id=${notificationId}`, { token: key })).body;
      return list.length === count && list.every((d: any) => d.status === 'delivered' || d.status === 'failed') ? list : null;
    });
  }

  async function notificationOf(key: string, alertId: string) {
    const list = (await t.request('GET', '/v1/notifications', { token: key })).body;
    return list.find((n: any) => n.alert_id === alertId);
  }

  it('delivers an alert by email, chat_a, chat_b and a signed webhook', async () => {
    const { key, account } = await t.signup();
    const slack = await receiver();
    const discord = await receiver();
    const hook = await receiver();
    const config = await t.request('PUT', '/v1/notifications/config', {
      token: key,
      body: {
        channels: {
          email: { enabled: true, address: 'oncall@example.com' },
          chat_a: { enabled: true, webhook_url: `${slack.url}/services/T1/B1/abc` },
          chat_b: { enabled: true, webhook_url: `${discord.url}/api/webhooks/1/xyz` },
          webhook: { enabled: true, url: `${hook.url}/paddock` },
        },
      },
    });
    expect(config.status).toBe(200);
    const secret = config.body.channels.webhook.secret;

    const alert = await raise(account.id, 'sbx_all', 'process <init> died & took the shell');
    const notification = await notificationOf(key, alert!.id);
    const deliveries = await settledDeliveries(key, notification.id, 4);
    expect(deliveries.map((d: any) => [d.channel, d.status, d.attempts]).sort()).toEqual([
      ['chat_a', 'delivered', 1],
      ['chat_b', 'delivered', 1],
      ['email', 'delivered', 1],
      ['webhook', 'delivered', 1],
    ]);
    for (const delivery of deliveries) {
      expect(delivery.notification_id).toBe(notification.id);
      expect(delivery.last_error).toBeNull();
      expect(delivery.attempt_history).toEqual([expect.objectContaining({ attempt: 1, outcome: 'delivered', status_code: delivery.channel === 'email' ? 250 : 200, error: null })]);
    }

    const mail = await waitFor('the email', () => smtp.messages.find((m) => m.to.includes('oncall@example.com')));
    expect(mail.from).toBe('alerts@paddock.test');
    expect(mail.raw).toMatch(/^Subject: \[Paddock\] Sandbox error \(error\)$/m);
    expect(mail.raw).toMatch(/^From: Paddock Alerts <alerts@paddock\.test>$/m);
    expect(mail.raw).toContain('sbx_all');

    expect(slack.requests).toHaveLength(1);
    expect(slack.requests[0].path).toBe('/services/T1/B1/abc');
    expect(slack.requests[0].headers['content-type']).toBe('application/json');
    const slackBody = JSON.parse(slack.requests[0].body);
    expect(slackBody.text).toBe('[Error] Sandbox error: process <init> died & took the shell');
    expect(slackBody.blocks[0]).toEqual({ type: 'header', text: { type: 'plain_text', text: 'Sandbox error' } });
    expect(slackBody.blocks[1]).toEqual({ type: 'section', text: { type: 'mrkdwn', text: 'process &lt;init&gt; died &amp; took the shell' } });
    expect(slackBody.blocks[2].type).toBe('context');
    expect(slackBody.blocks[2].elements[0].text).toContain('sbx_all');

    expect(discord.requests).toHaveLength(1);
    const discordBody = JSON.parse(discord.requests[0].body);
    expect(discordBody.content).toBe('**Sandbox error**');
    expect(discordBody.allowed_mentions).toEqual({ parse: [] });
    expect(discordBody.embeds).toHaveLength(1);
    expect(discordBody.embeds[0]).toMatchObject({ title: 'Sandbox error', description: 'process <init> died & took the shell', color: expect.any(Number), timestamp: notification.created_at });
    expect(discordBody.embeds[0].fields).toEqual([
      { name: 'Severity', value: 'Error', inline: true },
      { name: 'Type', value: 'sandbox_error', inline: true },
      { name: 'Sandbox', value: 'sbx_all', inline: true },
    ]);

    expect(hook.requests).toHaveLength(1);
    const call = hook.requests[0];
    const webhookDelivery = deliveries.find((d: any) => d.channel === 'webhook');
    expect(call.headers['webhook-id']).toBe(webhookDelivery.id);
    expect(Math.abs(Number(call.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(verifySignature(secret, call)).toBe(true);
    const otherSecret = secret.replace(/^whsec_(.)/, (_m: string, c: string) => `whsec_${c === 'A' ? 'B' : 'A'}`);
    expect(verifySignature(otherSecret, call)).toBe(false);
    const event = JSON.parse(call.body);
    expect(event).toEqual({
      type: 'alert.raised',
      timestamp: notification.created_at,
      data: expect.objectContaining({ id: alert!.id, type: 'sandbox_error', severity: 'error', sandbox_id: 'sbx_all', resolved: false, details: { error: 'exit 137' } }),
    });

    const withDeliveries = (await t.request('GET', `/v1/notifications/${notification.id}`, { token: key })).body;
    expect(withDeliveries.deliveries).toHaveLength(4);
    const one = await t.request('GET', `/v1/notifications/deliveries/${webhookDelivery.id}`, { token: key });
    expect(one.body).toMatchObject({ id: webhookDelivery.id, channel: 'webhook', target: `${hook.url}/paddock`, status: 'delivered' });
    expect((await t.request('GET', '/v1/notifications/deliveries?channel=email', { token: key })).body.map((d: any) => d.channel)).toEqual(['email']);
  });

  it("sends only to the rule's channels that the config enables", async () => {
    const { key, account } = await t.signup();
    const slack = await receiver();
    const hook = await receiver();
    await t.request('PUT', '/v1/notifications/config', {
      token: key,
      body: { channels: { chat_a: { enabled: true, webhook_url: slack.url }, webhook: { enabled: false, url: hook.url } } },
    });
    const rule = (await t.request('GET', '/v1/alerts/rules', { token: key })).body.find((r: any) => r.type === 'sandbox_error');
    await t.request('PUT', `/v1/alerts/rules/${rule.id}`, { token: key, body: { channels: ['webhook', 'email'] } });

    const first = await raise(account.id, 'sbx_rule1');
    // webhook is in the rule but disabled, email in the rule but not configured, chat_a enabled but not in the rule.
    expect((await t.request('GET', '/v1/notifications/deliveries', { token: key })).body).toEqual([]);
    expect(await notificationOf(key, first!.id)).toBeDefined();

    await t.request('PUT', '/v1/notifications/config', { token: key, body: { channels: { webhook: { enabled: true } } } });
    const second = await raise(account.id, 'sbx_rule2');
    const deliveries = await settledDeliveries(key, (await notificationOf(key, second!.id)).id, 1);
    expect(deliveries[0]).toMatchObject({ channel: 'webhook', status: 'delivered' });
    expect(hook.requests).toHaveLength(1);
    expect(slack.requests).toHaveLength(0);
  });

  it('retries a failing receiver with growing delays and keeps the same webhook-id', async () => {
    const { key, account } = await t.signup();
    const hook = await receiver((_, index) => (index < 2 ? 500 : 200));
    const config = await t.request('PUT', '/v1/notifications/config', { token: key, body: { channels: { webhook: { enabled: true, url: hook.url } } } });
    const alert = await raise(account.id, 'sbx_retry');
    const [delivery] = await settledDeliveries(key, (await notificationOf(key, alert!.id)).id, 1);

    expect(delivery).toMatchObject({ status: 'delivered', attempts: 3, last_error: null, next_attempt_at: null });
    expect(delivery.attempt_history.map((a: any) => [a.attempt, a.outcome, a.status_code])).toEqual([
      [1, 'failed', 500],
      [2, 'failed', 500],
      [3, 'delivered', 200],
    ]);
    expect(delivery.attempt_history[0].error).toBe('the receiver answered HTTP 500');
    expect(delivery.attempt_history[0].response).toBe('failing with 500');
    expect(hook.requests).toHaveLength(3);
    expect(new Set(hook.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([delivery.id]));
    for (const request of hook.requests) expect(verifySignature(config.body.channels.webhook.secret, request)).toBe(true);
    const [a, b, c] = hook.requests.map((r) => r.receivedAt);
    expect(b - a).toBeGreaterThanOrEqual(BACKOFF_BASE_MS);
    expect(c - b).toBeGreaterThanOrEqual(4 * BACKOFF_BASE_MS);
  });

  it('gives up after the maximum number of attempts and says why', async () => {
    const { key, account } = await t.signup();
    const hook = await receiver(() => 503);
    await t.request('PUT', '/v1/notifications/config', { token: key, body: { channels: { chat_b: { enabled: true, webhook_url: hook.url } } } });
    const alert = await raise(account.id, 'sbx_down');
    const [delivery] = await settledDeliveries(key, (await notificationOf(key, alert!.id)).id, 1);
    expect(delivery).toMatchObject({ channel: 'chat_b', status: 'failed', attempts: 3, max_attempts: 3, last_error: 'the receiver answered HTTP 503', next_attempt_at: null });
    expect(delivery.attempt_history.map((a: any) => a.outcome)).toEqual(['failed', 'failed', 'failed']);
    expect(hook.requests).toHaveLength(3);
    expect((await t.request('GET', '/v1/notifications/deliveries?status=failed', { token: key })).body.map((d: any) => d.id)).toEqual([delivery.id]);
  });

  it('does not follow redirects', async () => {
    const { key, account } = await t.signup();
    const hook = await receiver(() => 302);
    await t.request('PUT', '/v1/notifications/config', { token: key, body: { channels: { chat_a: { enabled: true, webhook_url: hook.url } } } });
    const alert = await raise(account.id, 'sbx_redirect');
    const [delivery] = await settledDeliveries(key, (await notificationOf(key, alert!.id)).id, 1);
    expect(delivery.status).toBe('failed');
    expect(delivery.last_error).toBe('the receiver answered HTTP 302 (redirects are not followed)');
  });

  it('retries email after a temporary SMTP refusal and gives up on a permanent one', async () => {
    const { key, account } = await t.signup();
    await t.request('PUT', '/v1/notifications/config', { token: key, body: { channels: { email: { enabled: true, address: 'flaky@example.com' } } } });
    const codes = [451, 250];
    smtp.respond = () => codes.shift() ?? 250;
    const alert = await raise(account.id, 'sbx_mail');
    const [delivery] = await settledDeliveries(key, (await notificationOf(key, alert!.id)).id, 1);
    expect(delivery.status).toBe('delivered');
    expect(delivery.attempt_history.map((a: any) => [a.outcome, a.status_code])).toEqual([
      ['failed', 451],
      ['delivered', 250],
    ]);
    expect(delivery.attempt_history[0].error).toMatch(/^SMTP: /);

    smtp.respond = () => 550;
    const refused = await raise(account.id, 'sbx_mail2');
    const [failed] = await settledDeliveries(key, (await notificationOf(key, refused!.id)).id, 1);
    expect(failed).toMatchObject({ status: 'failed', attempts: 1 });
    expect(failed.attempt_history[0].status_code).toBe(550);
    smtp.respond = () => 250;
  });
});
