// An approval's notification reaches the channels the stage names (and the account enabled): chat_a
// to a real HTTP receiver, email to a real SMTP receiver, dashboard as the in-app notification.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { startHttpReceiver, startSmtpReceiver, type HttpReceiver, type SmtpReceiver } from '../helpers/receivers.js';
import { waitFor } from '../helpers/wait-for.js';
import { createPipeline, startRun, waitForRun } from '../helpers/pipelines.js';

describe('approval notifications', () => {
  let t: TestApp;
  let smtp: SmtpReceiver;
  let chat: HttpReceiver;
  let key: string;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    chat = await startHttpReceiver();
    t = await startApp('sqlite', {
      SMTP_URL: smtp.url,
      PADDOCK_ALLOW_PRIVATE_WEBHOOKS: 'true',
      PADDOCK_ALLOW_HTTP_WEBHOOKS: 'true',
      PADDOCK_OUTBOX_POLL_INTERVAL_MS: '50',
      PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50',
    });
    ({ key } = await t.signup());
    const config = await t.request('PUT', '/v1/notifications/config', {
      token: key,
      body: { channels: { email: { enabled: true, address: 'ops@example.com' }, chat_a: { enabled: true, webhook_url: `${chat.url}/services/T1/B1/x` } } },
    });
    expect(config.status, config.text).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
    await chat?.close();
  });

  it('sends the approval request to email and chat_a and records it in the dashboard', async () => {
    const pipeline = await createPipeline(t, key, {
      name: 'release',
      stages: [{ name: 'prod', type: 'await_approval', config: { message: 'Ship release 7?', channels: ['dashboard', 'email', 'chat_a'] } }],
    });
    const run = await startRun(t, key, pipeline.id);
    await waitForRun(t, key, pipeline.id, run.id, (r) => r.status === 'paused');
    await waitFor('the chat message', () => chat.requests.length > 0);
    expect(chat.requests[0].body).toContain('Ship release 7?');
    await waitFor('the email', () => smtp.messages.length > 0);
    expect(JSON.stringify(smtp.messages[0])).toContain('Ship release 7?');
    const notifications = await t.request('GET', '/v1/notifications', { token: key });
    expect(notifications.text).toContain('Approval needed: release / prod');
  });

  it('sends nothing to channels the stage does not name', async () => {
    const before = chat.requests.length;
    const emails = smtp.messages.length;
    const pipeline = await createPipeline(t, key, { name: 'quiet', stages: [{ name: 'ok', type: 'await_approval', config: { channels: ['dashboard'] } }] });
    const run = await startRun(t, key, pipeline.id);
    await waitForRun(t, key, pipeline.id, run.id, (r) => r.status === 'paused');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(chat.requests.length).toBe(before);
    expect(smtp.messages.length).toBe(emails);
  });
});
