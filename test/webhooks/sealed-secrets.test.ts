// Signing secrets at rest: webhook endpoints', task webhooks' and the notification webhook channel's
// secrets are stored sealed (never as the secret itself), and still sign every delivery; secrets an
// earlier version stored in plain text are sealed when a server starts, and keep signing as before.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/core/webhooks/signature.js';
import { createPipeline, ECHO_SKILL, registerAgent, taskWebhookVerifies } from '../helpers/a2a.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { BACKENDS } from '../helpers/backends.js';
import { startHttpReceiver, type HttpReceiver, type ReceivedRequest } from '../helpers/receivers.js';
import { waitFor } from '../helpers/wait-for.js';

const ENV = {
  PADDOCK_ALLOW_PRIVATE_WEBHOOKS: 'true',
  PADDOCK_ALLOW_HTTP_WEBHOOKS: 'true',
  PADDOCK_OUTBOX_POLL_INTERVAL_MS: '50',
  PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50',
};
const ASK = { name: 'ask', type: 'await_approval', config: { message: 'Proceed?', channels: ['dashboard'] } };
const AFTER = { name: 'after', type: 'gate', config: { expression: 'true' }, depends_on: ['ask'] };

function endpointVerifies(secret: string, request: ReceivedRequest): boolean {
  return verifyWebhook(secret, request.headers['webhook-id'] as string, Number(request.headers['webhook-timestamp']), request.body, request.headers['webhook-signature'] as string);
}

describe.each(BACKENDS)('signing secrets at rest on %s', (backend) => {
  let t: TestApp;
  const receivers: HttpReceiver[] = [];

  beforeAll(async () => {
    t = await startApp(backend, ENV);
  });
  afterAll(async () => {
    await t?.close();
    for (const receiver of receivers) await receiver.close();
  });

  async function receiver() {
    const started = await startHttpReceiver();
    receivers.push(started);
    return started;
  }

  /** What the database holds for each secret of the account: never the secret itself. */
  async function stored(accountId: string) {
    const db = t.storage.db;
    return {
      endpoints: (await db.selectFrom('webhook_endpoints').select('secret').where('account_id', '=', accountId).execute()).map((row) => row.secret),
      taskWebhooks: (await db.selectFrom('a2a_webhooks').select('secret').where('account_id', '=', accountId).execute()).map((row) => row.secret),
      notification: (await db.selectFrom('notification_configs').select('webhook_secret').where('account_id', '=', accountId).executeTakeFirst())?.webhook_secret,
    };
  }

  /** Creates one of each, answering the secrets as the API gave them. */
  async function subscribe(key: string, hook: HttpReceiver) {
    const endpoint = await t.request('POST', '/v1/webhooks', { token: key, body: { url: `${hook.url}/endpoint`, events: ['*'] } });
    expect(endpoint.status, endpoint.text).toBe(201);
    const taskWebhook = await t.request('POST', '/v1/a2a/webhooks', { token: key, body: { url: `${hook.url}/tasks`, events: ['task.input_needed'] } });
    expect(taskWebhook.status, taskWebhook.text).toBe(201);
    const config = await t.request('GET', '/v1/notifications/config', { token: key });
    expect(config.status, config.text).toBe(200);
    return { endpoint: endpoint.body as { id: string; secret: string }, taskWebhookSecret: taskWebhook.body.secret as string, notificationSecret: config.body.channels.webhook.secret as string };
  }

  /** A test delivery to the endpoint and a task.input_needed push to the task webhook; both requests. */
  async function deliverBoth(key: string, hook: HttpReceiver, endpointId: string) {
    const before = hook.requests.length;
    expect((await t.request('POST', `/v1/webhooks/${endpointId}/test`, { token: key })).status).toBe(202);
    const pipeline = await createPipeline(t.url, key, { stages: [ASK, AFTER] });
    const agent = await registerAgent(t.url, key, { pipeline_id: pipeline.id });
    const task = await t.request('POST', `/v1/a2a/agents/${agent.id}/tasks`, { token: key, body: { skill_id: ECHO_SKILL.id, input: { query: 'hi' } } });
    expect(task.status, task.text).toBe(201);
    const requests = await waitFor('both deliveries', () => {
      const fresh = hook.requests.slice(before);
      const endpoint = fresh.find((request) => request.path === '/endpoint');
      const pushed = fresh.find((request) => request.path === '/tasks');
      return endpoint && pushed ? { endpoint, pushed } : null;
    });
    return requests;
  }

  it('stores every signing secret sealed, and signs deliveries with the secret the API answered', async () => {
    const { key, account } = await t.signup();
    const hook = await receiver();
    const secrets = await subscribe(key, hook);
    expect(secrets.notificationSecret).toMatch(/^whsec_/);

    const rows = await stored(account.id);
    for (const value of [...rows.endpoints, ...rows.taskWebhooks, rows.notification!]) expect(value).toMatch(/^sealed:v1:/);
    const everything = JSON.stringify(rows);
    for (const secret of [secrets.endpoint.secret, secrets.taskWebhookSecret, secrets.notificationSecret]) expect(everything).not.toContain(secret);

    const { endpoint, pushed } = await deliverBoth(key, hook, secrets.endpoint.id);
    expect(endpointVerifies(secrets.endpoint.secret, endpoint)).toBe(true);
    expect(taskWebhookVerifies(secrets.taskWebhookSecret, pushed)).toBe(true);
    expect((await t.request('GET', '/v1/notifications/config', { token: key })).body.channels.webhook.secret).toBe(secrets.notificationSecret);
  });

  it('seals again what a rotation or an update stores', async () => {
    const { key, account } = await t.signup();
    const hook = await receiver();
    const { endpoint } = await subscribe(key, hook);
    const rotated = await t.request('PATCH', `/v1/webhooks/${endpoint.id}`, { token: key, body: { rotate_secret: true } });
    expect(rotated.status, rotated.text).toBe(200);
    const own = `whsec_${Buffer.alloc(32, 7).toString('base64')}`;
    const updated = await t.request('PUT', '/v1/notifications/config', { token: key, body: { channels: { webhook: { secret: own } } } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.channels.webhook.secret).toBe(own);

    const rows = await stored(account.id);
    expect(rows.endpoints[0]).toMatch(/^sealed:v1:/);
    expect(rows.notification).toMatch(/^sealed:v1:/);
    expect(JSON.stringify(rows)).not.toContain(rotated.body.secret);
    expect(JSON.stringify(rows)).not.toContain(own);
    expect((await t.request('GET', '/v1/notifications/config', { token: key })).body.channels.webhook.secret).toBe(own);
    expect((await t.request('POST', `/v1/webhooks/${endpoint.id}/test`, { token: key })).status).toBe(202);
    const [delivered] = await waitFor('the test delivery', () => (hook.requests.length ? hook.requests : null));
    expect(endpointVerifies(rotated.body.secret, delivered)).toBe(true);
    expect(endpointVerifies(endpoint.secret, delivered)).toBe(false);
  });

  it('seals the secrets an earlier version stored in plain text when the server starts, and keeps signing with them', async () => {
    const { key, account } = await t.signup();
    const hook = await receiver();
    const secrets = await subscribe(key, hook);
    // As a version before sealing wrote them.
    const plainEndpoint = `whsec_${Buffer.alloc(32, 3).toString('base64')}`;
    const plainTask = 'a-task-webhook-secret-from-before';
    const plainNotification = `whsec_${Buffer.alloc(32, 5).toString('base64')}`;
    await t.storage.db.updateTable('webhook_endpoints').set({ secret: plainEndpoint }).where('id', '=', secrets.endpoint.id).execute();
    await t.storage.db.updateTable('a2a_webhooks').set({ secret: plainTask }).where('account_id', '=', account.id).execute();
    await t.storage.db.updateTable('notification_configs').set({ webhook_secret: plainNotification }).where('account_id', '=', account.id).execute();
    // Read as they are until then.
    expect((await t.request('GET', '/v1/notifications/config', { token: key })).body.channels.webhook.secret).toBe(plainNotification);

    const reuse = { dataDir: t.dataDir, databaseUrl: t.databaseUrl };
    await t.close({ keepData: true });
    t = await startApp(backend, ENV, { reuse });
    const rows = await stored(account.id);
    for (const value of [...rows.endpoints, ...rows.taskWebhooks, rows.notification!]) expect(value).toMatch(/^sealed:v1:/);
    for (const secret of [plainEndpoint, plainTask, plainNotification]) expect(JSON.stringify(rows)).not.toContain(secret);

    const { endpoint, pushed } = await deliverBoth(key, hook, secrets.endpoint.id);
    expect(endpointVerifies(plainEndpoint, endpoint)).toBe(true);
    expect(taskWebhookVerifies(plainTask, pushed)).toBe(true);
    expect((await t.request('GET', '/v1/notifications/config', { token: key })).body.channels.webhook.secret).toBe(plainNotification);
  });
});
