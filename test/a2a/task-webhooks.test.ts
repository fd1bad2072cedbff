// Task webhooks through the real HTTP API on every backend: create (secret answered once, generated
// or the caller's), list, get, delete; every refusal with the agent-delegation error body (unknown
// event names by index, URLs refused by the outbound guard, the per-account quota, narrow keys,
// another account's webhook); and deliveries of real task changes to a real receiver, signed so the
// receiver can verify them, retried after a 500, refused at delivery for a name resolving to loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyTaskWebhook } from '../../src/a2a/webhooks/signature.js';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createPipeline, ECHO_SKILL, registerAgent, taskWebhookVerifies } from '../helpers/a2a.js';
import { startHttpReceiver, type HttpReceiver } from '../helpers/receivers.js';
import { waitFor } from '../helpers/wait-for.js';

const URL_OK = 'https://hooks.example.com/paddock';

describe.each(BACKENDS)('task webhooks on %s', (backend) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp(backend);
  });
  afterAll(async () => {
    await t?.close();
  });

  const create = (key: string, body: unknown) => t.request('POST', '/v1/a2a/webhooks', { token: key, body });

  it('creates a webhook with a generated secret answered once, then lists and gets it without the secret', async () => {
    const { key } = await t.signup();
    const created = await create(key, { url: URL_OK, events: ['task.completed', 'task.failed', 'task.completed'] });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^twh_/),
      url: URL_OK,
      events: ['task.completed', 'task.failed'],
      secret: expect.stringMatching(/^a2awh_[0-9a-f]{64}$/),
      created_at: expect.any(String),
    });
    const listed = await t.request('GET', '/v1/a2a/webhooks', { token: key });
    expect(listed.status).toBe(200);
    expect(listed.body).toEqual({ webhooks: [{ id: created.body.id, url: URL_OK, events: ['task.completed', 'task.failed'], created_at: created.body.created_at }] });
    const got = await t.request('GET', `/v1/a2a/webhooks/${created.body.id}`, { token: key });
    expect(got.status).toBe(200);
    expect(got.body).toEqual(listed.body.webhooks[0]);
    expect(got.text).not.toContain(created.body.secret);
  });

  it('takes the caller\'s secret and "*" for every event', async () => {
    const { key } = await t.signup();
    const created = await create(key, { url: URL_OK, events: ['*'], secret: 'my-own-secret-of-some-length' });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toMatchObject({ events: ['*'], secret: 'my-own-secret-of-some-length' });
  });

  it('deletes a webhook (204); then it is not found', async () => {
    const { key } = await t.signup();
    const { id } = (await create(key, { url: URL_OK, events: ['task.running'] })).body;
    const deleted = await t.request('DELETE', `/v1/a2a/webhooks/${id}`, { token: key });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    for (const [method, path] of [
      ['GET', `/v1/a2a/webhooks/${id}`],
      ['DELETE', `/v1/a2a/webhooks/${id}`],
      ['GET', `/v1/a2a/webhooks/${id}/deliveries`],
    ]) {
      const reply = await t.request(method, path, { token: key });
      expect(reply.status, `${method} ${path}`).toBe(404);
      expect(reply.body).toEqual({ error: { code: 'not_found', message: 'task webhook not found', details: {} } });
    }
    expect((await t.request('GET', '/v1/a2a/webhooks', { token: key })).body).toEqual({ webhooks: [] });
  });

  it('answers 400 naming the field for bad input', async () => {
    const { key } = await t.signup();
    const cases: [unknown, string][] = [
      [{ events: ['task.completed'] }, 'body.url'],
      [{ url: URL_OK }, 'body.events'],
      [{ url: URL_OK, events: [] }, 'body.events'],
      [{ url: URL_OK, events: ['task.completed', 'task.exploded'] }, 'body.events[1]'],
      [{ url: URL_OK, events: ['pipeline.run.failed'] }, 'body.events[0]'],
      [{ url: 'not a url', events: ['*'] }, 'body.url'],
      [{ url: 'ftp://hooks.example.com/x', events: ['*'] }, 'body.url'],
      [{ url: 'http://hooks.example.com/x', events: ['*'] }, 'body.url'],
      [{ url: 'https://127.0.0.1/x', events: ['*'] }, 'body.url'],
      [{ url: 'https://10.1.2.3/x', events: ['*'] }, 'body.url'],
      [{ url: URL_OK, events: ['*'], secret: 'short' }, 'body.secret'],
      [{ url: URL_OK, events: ['*'], secret: 'has a space in it, long enough' }, 'body.secret'],
      [{ url: URL_OK, events: ['*'], color: 'red' }, 'body.color'],
    ];
    for (const [body, field] of cases) {
      const reply = await create(key, body);
      expect(reply.status, `${JSON.stringify(body)}: ${reply.text}`).toBe(400);
      expect(reply.body.error.code, reply.text).toMatch(/^invalid_(field|request)$/);
      expect(reply.body.error.message, reply.text).toContain(field);
    }
    const deliveries = (await create(key, { url: URL_OK, events: ['*'] })).body;
    for (const query of ['?status=lost', '?limit=0', '?limit=101', '?offset=-1', '?color=red']) {
      const reply = await t.request('GET', `/v1/a2a/webhooks/${deliveries.id}/deliveries${query}`, { token: key });
      expect(reply.status, `${query}: ${reply.text}`).toBe(400);
      expect(reply.body.error.message).toContain('query.');
    }
    expect((await t.request('GET', '/v1/a2a/webhooks', { token: key })).body.webhooks).toHaveLength(1);
  });

  it('answers 401 without a key', async () => {
    for (const [method, path] of [
      ['POST', '/v1/a2a/webhooks'],
      ['GET', '/v1/a2a/webhooks'],
      ['GET', '/v1/a2a/webhooks/twh_x'],
      ['DELETE', '/v1/a2a/webhooks/twh_x'],
      ['GET', '/v1/a2a/webhooks/twh_x/deliveries'],
    ]) {
      const reply = await t.request(method, path, method === 'POST' ? { body: { url: URL_OK, events: ['*'] } } : {});
      expect(reply.status, `${method} ${path}`).toBe(401);
      expect(reply.body.error.code).toBe('unauthorized');
    }
  });

  it('is for full-scope keys only (403 scope_denied): the secret is a credential', async () => {
    const { key } = await t.signup();
    const { id } = (await create(key, { url: URL_OK, events: ['*'] })).body;
    for (const scope of ['sandbox', 'read']) {
      const narrow = (await t.request('POST', '/v1/account/keys', { token: key, body: { name: scope, scope } })).body.key;
      for (const [method, path] of [
        ['POST', '/v1/a2a/webhooks'],
        ['GET', '/v1/a2a/webhooks'],
        ['GET', `/v1/a2a/webhooks/${id}`],
        ['DELETE', `/v1/a2a/webhooks/${id}`],
        ['GET', `/v1/a2a/webhooks/${id}/deliveries`],
      ]) {
        const reply = await t.request(method, path, { token: narrow, ...(method === 'POST' ? { body: { url: URL_OK, events: ['*'] } } : {}) });
        expect(reply.status, `${scope} ${method} ${path}`).toBe(403);
        expect(reply.body.error.code).toBe('scope_denied');
      }
    }
    expect((await t.request('GET', `/v1/a2a/webhooks/${id}`, { token: key })).status).toBe(200);
  });

  it("answers 404 for another account's webhook on every operation, and leaves it alone", async () => {
    const owner = (await t.signup()).key;
    const other = (await t.signup()).key;
    const { id } = (await create(owner, { url: URL_OK, events: ['*'] })).body;
    for (const [method, path] of [
      ['GET', `/v1/a2a/webhooks/${id}`],
      ['DELETE', `/v1/a2a/webhooks/${id}`],
      ['GET', `/v1/a2a/webhooks/${id}/deliveries`],
    ]) {
      const reply = await t.request(method, path, { token: other });
      expect(reply.status, `${method} ${path}`).toBe(404);
      expect(reply.body.error.code).toBe('not_found');
    }
    expect((await t.request('GET', '/v1/a2a/webhooks', { token: other })).body).toEqual({ webhooks: [] });
    expect((await t.request('GET', `/v1/a2a/webhooks/${id}`, { token: owner })).status).toBe(200);
  });

  it('refuses at delivery a host name that resolves to loopback, without calling it', async () => {
    const receiver = await startHttpReceiver();
    try {
      const { key } = await t.signup();
      const hook = (await create(key, { url: `https://localhost:${receiver.port}/hook`, events: ['*'] })).body;
      const agent = await registerAgent(t.url, key);
      const task = await t.request('POST', `/v1/a2a/agents/${agent.id}/tasks`, { token: key, body: { skill_id: ECHO_SKILL.id, input: { query: 'x' } } });
      expect(task.status, task.text).toBe(201);
      const { deliveries } = await waitFor('the refused deliveries', async () => {
        const list = (await t.request('GET', `/v1/a2a/webhooks/${hook.id}/deliveries`, { token: key })).body;
        return list.deliveries.length >= 3 && list.deliveries.every((d: any) => d.status === 'failed') ? list : null;
      });
      expect(new Set(deliveries.map((d: any) => d.event))).toEqual(new Set(['task.created', 'task.running', 'task.completed']));
      for (const delivery of deliveries) {
        expect(delivery).toMatchObject({ task_id: task.body.id, attempts: 1, response_status: null });
        expect(delivery.last_error).toMatch(/^refused: the target URL .*(loopback|non-public)/);
      }
      expect(receiver.requests).toHaveLength(0);
    } finally {
      await receiver.close();
    }
  });

  it('holds at most 20 task webhooks per account (403 quota_exceeded)', async () => {
    const { key } = await t.signup();
    for (let i = 0; i < 20; i++) expect((await create(key, { url: `${URL_OK}/${i}`, events: ['*'] })).status).toBe(201);
    const refused = await create(key, { url: `${URL_OK}/20`, events: ['*'] });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ error: { code: 'quota_exceeded', message: 'an account can have 20 task webhooks; delete one first', details: {} } });
    expect((await t.request('GET', '/v1/a2a/webhooks', { token: key })).body.webhooks).toHaveLength(20);
  });
});

describe.each(BACKENDS)('task webhooks and the task stream under the account rate limit on %s', (backend) => {
  it('answer 429 rate_limited with the agent-delegation error body and Retry-After', async () => {
    const t = await startApp(backend, { PADDOCK_RATE_LIMIT_FREE: '4' });
    try {
      const { key } = await t.signup();
      const replies = [];
      for (let i = 0; i < 5; i++) replies.push(await t.request('GET', '/v1/a2a/webhooks', { token: key }));
      const limited = replies.at(-1)!;
      expect(limited.status).toBe(429);
      expect(limited.body.error.code).toBe('rate_limited');
      expect(limited.headers.get('retry-after')).toMatch(/^\d+$/);
      const stream = await t.request('GET', '/v1/a2a/tasks/tsk_any/stream', { token: key, headers: { accept: 'text/event-stream' } });
      expect(stream.status).toBe(429);
      expect(stream.body.error.code).toBe('rate_limited');
    } finally {
      await t.close();
    }
  });
});

const ASK = { name: 'ask', type: 'await_approval', config: { message: 'Proceed?', channels: ['dashboard'] } };
const AFTER = { name: 'after', type: 'gate', config: { expression: 'true' }, depends_on: ['ask'] };

describe.each(BACKENDS)('task webhook deliveries on %s', (backend) => {
  let t: TestApp;
  const receivers: HttpReceiver[] = [];

  beforeAll(async () => {
    t = await startApp(backend, {
      PADDOCK_ALLOW_PRIVATE_WEBHOOKS: 'true',
      PADDOCK_ALLOW_HTTP_WEBHOOKS: 'true',
      PADDOCK_OUTBOX_POLL_INTERVAL_MS: '50',
      PADDOCK_OUTBOX_BACKOFF_BASE_MS: '200',
      PADDOCK_OUTBOX_MAX_ATTEMPTS: '3',
      PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50',
    });
  });
  afterAll(async () => {
    await t?.close();
    for (const receiver of receivers) await receiver.close();
  });

  async function receiver(respond?: HttpReceiver['respond']) {
    const started = await startHttpReceiver(respond);
    receivers.push(started);
    return started;
  }

  async function webhook(key: string, url: string, events: string[], secret?: string) {
    const reply = await t.request('POST', '/v1/a2a/webhooks', { token: key, body: { url, events, ...(secret ? { secret } : {}) } });
    expect(reply.status, reply.text).toBe(201);
    return reply.body as { id: string; secret: string };
  }

  async function waitingTask(key: string) {
    const pipeline = await createPipeline(t.url, key, { stages: [ASK, AFTER] });
    const agent = await registerAgent(t.url, key, { pipeline_id: pipeline.id });
    const created = await t.request('POST', `/v1/a2a/agents/${agent.id}/tasks`, { token: key, body: { skill_id: ECHO_SKILL.id, input: { query: 'hi' } } });
    expect(created.status, created.text).toBe(201);
    return created.body as { id: string; agent_id: string };
  }

  const bodies = (hook: HttpReceiver) => hook.requests.map((request) => JSON.parse(request.body));

  it('pushes the subscribed changes of a task, signed so the receiver can verify them, and lists the deliveries', async () => {
    const { key } = await t.signup();
    const hook = await receiver();
    const subscribed = await webhook(key, `${hook.url}/tasks`, ['task.input_needed', 'task.completed'], 'shared-secret-for-this-test');
    const failedOnly = await receiver();
    await webhook(key, failedOnly.url, ['task.failed']);
    const stranger = await receiver();
    await webhook((await t.signup()).key, stranger.url, ['*']);

    const task = await waitingTask(key);
    const [asking] = await waitFor('task.input_needed', () => (hook.requests.length >= 1 ? hook.requests : null));
    expect(asking).toMatchObject({ method: 'POST', path: '/tasks' });
    expect(asking.headers['content-type']).toMatch(/^application\/json/);
    expect(asking.headers['x-paddock-event']).toBe('task.input_needed');
    expect(asking.headers['x-paddock-delivery']).toMatch(/^dlv_/);
    const askingBody = JSON.parse(asking.body);
    expect(Object.keys(askingBody)).toEqual(['event', 'timestamp', 'task', 'signature']);
    expect(askingBody).toEqual({
      event: 'task.input_needed',
      timestamp: expect.any(String),
      task: { id: task.id, agent_id: task.agent_id, status: 'input_needed', status_message: 'Proceed?', output: null },
      signature: expect.stringMatching(/^sha256=[0-9a-f]{64}$/),
    });
    expect(taskWebhookVerifies('shared-secret-for-this-test', asking)).toBe(true);
    expect(taskWebhookVerifies('another-secret-entirely-0000', asking)).toBe(false);
    expect(verifyTaskWebhook('shared-secret-for-this-test', asking.body, asking.headers['x-paddock-signature'] as string)).toBe(true);
    expect(verifyTaskWebhook('shared-secret-for-this-test', asking.body.replace('"input_needed"', '"completed"'), askingBody.signature)).toBe(false);
    expect(Math.abs(Date.parse(askingBody.timestamp) - Date.now())).toBeLessThan(60_000);

    const answered = await t.request('POST', `/v1/a2a/tasks/${task.id}/messages`, { token: key, body: { parts: [{ type: 'text', text: 'yes' }] } });
    expect(answered.status, answered.text).toBe(201);
    await waitFor('task.completed', () => (hook.requests.length >= 2 ? true : null));
    const done = hook.requests[1];
    expect(JSON.parse(done.body)).toMatchObject({ event: 'task.completed', task: { id: task.id, status: 'completed' } });
    expect(taskWebhookVerifies('shared-secret-for-this-test', done)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hook.requests).toHaveLength(2);
    expect(failedOnly.requests).toHaveLength(0);
    expect(stranger.requests).toHaveLength(0);

    const { deliveries } = await waitFor('both delivered in the log', async () => {
      const list = (await t.request('GET', `/v1/a2a/webhooks/${subscribed.id}/deliveries`, { token: key })).body;
      return list.deliveries.length === 2 && list.deliveries.every((d: any) => d.status === 'delivered') ? list : null;
    });
    expect(deliveries.map((d: any) => d.event)).toEqual(['task.completed', 'task.input_needed']);
    expect(deliveries.map((d: any) => d.id)).toEqual([done.headers['x-paddock-delivery'], asking.headers['x-paddock-delivery']]);
    for (const delivery of deliveries) {
      expect(delivery).toMatchObject({ task_id: task.id, attempts: 1, response_status: 200, last_error: null, next_attempt_at: null });
      expect(delivery.attempt_history).toEqual([expect.objectContaining({ attempt: 1, outcome: 'delivered', status_code: 200, response: 'ok' })]);
    }
    const page = (await t.request('GET', `/v1/a2a/webhooks/${subscribed.id}/deliveries?limit=1&offset=1`, { token: key })).body;
    expect(page.deliveries.map((d: any) => d.event)).toEqual(['task.input_needed']);
    expect((await t.request('GET', `/v1/a2a/webhooks/${subscribed.id}/deliveries?status=failed`, { token: key })).body).toEqual({ deliveries: [] });
  });

  it('retries after a 500 with the same body and X-Paddock-Delivery until the receiver takes it', async () => {
    const { key } = await t.signup();
    const hook = await receiver((_request, index) => (index === 0 ? 500 : 204));
    const created = await webhook(key, hook.url, ['task.input_needed']);
    await waitingTask(key);
    const { deliveries } = await waitFor('the retried delivery', async () => {
      const list = (await t.request('GET', `/v1/a2a/webhooks/${created.id}/deliveries`, { token: key })).body;
      return list.deliveries[0]?.status === 'delivered' ? list : null;
    });
    expect(deliveries[0]).toMatchObject({ event: 'task.input_needed', attempts: 2, response_status: 204, last_error: null });
    expect(deliveries[0].attempt_history).toMatchObject([
      { attempt: 1, outcome: 'failed', status_code: 500, error: 'the receiver answered HTTP 500', response: 'failing with 500' },
      { attempt: 2, outcome: 'delivered', status_code: 204 },
    ]);
    expect(hook.requests).toHaveLength(2);
    expect(hook.requests[1].body).toBe(hook.requests[0].body);
    expect(hook.requests.map((r) => r.headers['x-paddock-delivery'])).toEqual([deliveries[0].id, deliveries[0].id]);
    expect(hook.requests.every((r) => taskWebhookVerifies(created.secret, r))).toBe(true);
  });

  it('pushes every change to "*": created, running, input_needed, canceled (with the reason)', async () => {
    const { key } = await t.signup();
    const hook = await receiver();
    const created = await webhook(key, hook.url, ['*']);
    const task = await waitingTask(key);
    await waitFor('task.input_needed', () => (bodies(hook).some((b) => b.event === 'task.input_needed') ? true : null));
    const canceled = await t.request('POST', `/v1/a2a/tasks/${task.id}/cancel`, { token: key, body: { reason: 'not needed' } });
    expect(canceled.status, canceled.text).toBe(200);
    await waitFor('task.canceled', () => (bodies(hook).some((b) => b.event === 'task.canceled') ? true : null));
    expect(new Set(bodies(hook).map((b) => b.event))).toEqual(new Set(['task.created', 'task.running', 'task.input_needed', 'task.canceled']));
    expect(bodies(hook).find((b) => b.event === 'task.canceled').task).toMatchObject({ status: 'canceled', status_message: 'not needed' });
    expect(hook.requests.every((r) => taskWebhookVerifies(created.secret, r))).toBe(true);
  });

  it('drops the pending deliveries of a deleted webhook', async () => {
    const { key } = await t.signup();
    const hook = await receiver(() => 503);
    const created = await webhook(key, hook.url, ['task.input_needed']);
    await waitingTask(key);
    await waitFor('the first failed attempt', () => (hook.requests.length >= 1 ? true : null));
    expect((await t.request('DELETE', `/v1/a2a/webhooks/${created.id}`, { token: key })).status).toBe(204);
    // An attempt already in flight may land; none starts after the delete (3 attempts would be over by then).
    await new Promise((resolve) => setTimeout(resolve, 100));
    const seen = hook.requests.length;
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(hook.requests.length).toBe(seen);
    expect(seen).toBeLessThan(3);
  });
});
