// A2A push notifications from a running Paddock to a real HTTP receiver, on every backend: configs
// created with the SDK client (and inside SendMessage's configuration) are listed, read and deleted;
// every status change of the task POSTs the task (a v1.0 StreamResponse) with the config's token and
// authentication through the outbox; a URL the SSRF guard refuses is an invalid-params error. The token
// and authentication are stored sealed, in the config's row and in the outbox payloads queued for it, and
// a config or payload an earlier version stored in clear still delivers (the config sealed at start-up).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamResponse, TaskState, type Task } from '@a2a-js/sdk';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createPipeline, registerAgent } from '../helpers/a2a.js';
import { sendRequest, textMessage, v03Transport, v1Client } from '../helpers/a2a-protocol.js';
import { startHttpReceiver, type HttpReceiver } from '../helpers/receivers.js';
import { waitFor } from '../helpers/wait-for.js';

const SKILL = { id: 'chat', name: 'Chat', description: 'Takes text.', tags: [], input_schema: { type: 'object' } };
const STAGES = [
  { name: 'ask', type: 'await_approval', config: { message: 'which repository?' } },
  { name: 'after', type: 'gate', config: { expression: 'true' }, depends_on: ['ask'] },
];

const ENV = {
  PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50',
  PADDOCK_OUTBOX_POLL_INTERVAL_MS: '50',
  PADDOCK_ALLOW_PRIVATE_WEBHOOKS: 'true',
  PADDOCK_ALLOW_HTTP_WEBHOOKS: 'true',
};

describe.each(BACKENDS)('A2A push notifications on %s', (backend) => {
  let t: TestApp;
  let key: string;
  let accountId: string;
  let agent: any;
  let receiver: HttpReceiver;

  beforeAll(async () => {
    t = await startApp(backend, ENV);
    const signedUp = await t.signup();
    key = signedUp.key;
    accountId = signedUp.account.id;
    agent = await registerAgent(t.url, key, { pipeline_id: (await createPipeline(t.url, key, { stages: STAGES })).id, skills: [SKILL] });
    receiver = await startHttpReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });

  const pushesFor = (taskId: string, path: string) =>
    receiver.requests.filter((request) => request.path === path && (StreamResponse.fromJSON(JSON.parse(request.body)).payload?.value as Task | undefined)?.id === taskId);
  const stateOf = (body: string) => (StreamResponse.fromJSON(JSON.parse(body)).payload?.value as Task).status?.state;

  /** What the database holds for the task's configs and for the pushes queued for it. */
  async function stored(taskId: string) {
    const db = t.storage.db;
    return {
      configs: await db.selectFrom('a2a_push_configs').select(['id', 'token', 'authentication']).where('task_id', '=', taskId).execute(),
      payloads: (await db.selectFrom('outbox').select('payload').where('kind', '=', 'a2a.push_notification').where('source_id', '=', taskId).execute()).map((row) => row.payload),
    };
  }

  it('POSTs the task on every status change to each config, with its token and authentication', async () => {
    const client = await v1Client(`${t.url}/a2a/${agent.id}`, key);
    const waiting = (await client.sendMessage(sendRequest(textMessage('start')))) as Task;
    expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

    const config = await client.createTaskPushNotificationConfig({
      tenant: '',
      id: '',
      taskId: waiting.id,
      url: `${receiver.url}/hook`,
      token: 'tok-123',
      authentication: { scheme: 'Bearer', credentials: 'receiver-secret' },
    });
    expect(config).toMatchObject({ taskId: waiting.id, url: `${receiver.url}/hook`, token: 'tok-123' });
    expect(config.id).toMatch(/^apn_/);
    expect((await client.getTaskPushNotificationConfig({ tenant: '', taskId: waiting.id, id: config.id })).url).toBe(`${receiver.url}/hook`);
    expect((await client.listTaskPushNotificationConfig({ tenant: '', taskId: waiting.id, pageSize: 0, pageToken: '' })).configs.map((one) => one.id)).toEqual([config.id]);

    await client.sendMessage(sendRequest(textMessage('go on', { taskId: waiting.id })));
    const pushes = await waitFor('the completed task pushed', () => {
      const received = pushesFor(waiting.id, '/hook');
      return received.some((request) => stateOf(request.body) === TaskState.TASK_STATE_COMPLETED) && received;
    });
    expect(pushes.map((request) => stateOf(request.body))).toContain(TaskState.TASK_STATE_WORKING);
    for (const request of pushes) {
      expect(request.method).toBe('POST');
      expect(request.headers['x-a2a-notification-token']).toBe('tok-123');
      expect(request.headers.authorization).toBe('Bearer receiver-secret');
      expect(request.headers['content-type']).toBe('application/a2a+json');
    }
    const completed = StreamResponse.fromJSON(JSON.parse(pushes.at(-1)!.body)).payload?.value as Task;
    expect(completed).toMatchObject({ id: waiting.id, contextId: waiting.contextId, metadata: { paddock_task_id: waiting.id } });

    await client.deleteTaskPushNotificationConfig({ tenant: '', taskId: waiting.id, id: config.id });
    await expect(client.getTaskPushNotificationConfig({ tenant: '', taskId: waiting.id, id: config.id })).rejects.toThrow(/not found/);
  });

  it('takes a config inside SendMessage: the task as it is once stored, then every change', async () => {
    const client = await v1Client(`${t.url}/a2a/${agent.id}`, key, 'HTTP+JSON');
    const request = sendRequest(textMessage('start'));
    request.configuration = {
      acceptedOutputModes: [],
      returnImmediately: true,
      taskPushNotificationConfig: { tenant: '', id: '', taskId: '', url: `${receiver.url}/inline`, token: 'inline-token', authentication: undefined },
    };
    const task = (await client.sendMessage(request)) as Task;
    const pushes = await waitFor('input-required pushed', () => {
      const received = pushesFor(task.id, '/inline');
      return received.some((one) => stateOf(one.body) === TaskState.TASK_STATE_INPUT_REQUIRED) && received;
    });
    expect(pushes[0].headers['x-a2a-notification-token']).toBe('inline-token');
    expect(pushes[0].headers.authorization).toBeUndefined();
  });

  it('serves the v0.3 tasks/pushNotificationConfig methods to the v0.3 client', async () => {
    const legacy = v03Transport(`${t.url}/a2a/${agent.id}`, key);
    const task = (await legacy.sendMessage(sendRequest(textMessage('start')))) as Task;
    const config = await legacy.createTaskPushNotificationConfig({ tenant: '', id: '', taskId: task.id, url: `${receiver.url}/legacy`, token: 'legacy-token', authentication: undefined });
    expect(config).toMatchObject({ taskId: task.id, url: `${receiver.url}/legacy` });
    expect((await legacy.getTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: config.id })).id).toBe(config.id);
    expect((await legacy.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' })).configs.map((one) => one.id)).toEqual([config.id]);
    await legacy.cancelTask({ tenant: '', id: task.id, metadata: {} });
    const pushed = await waitFor('the canceled task pushed', () => pushesFor(task.id, '/legacy').find((one) => stateOf(one.body) === TaskState.TASK_STATE_CANCELED));
    expect(pushed.headers['x-a2a-notification-token']).toBe('legacy-token');
    await legacy.deleteTaskPushNotificationConfig({ tenant: '', taskId: task.id, id: config.id });
    expect((await legacy.listTaskPushNotificationConfig({ tenant: '', taskId: task.id, pageSize: 0, pageToken: '' })).configs).toEqual([]);
  });

  it('stores the token and authentication sealed, in the config and in the queued pushes, and answers and sends them as set', async () => {
    const token = `tok-${randomUUID()}`;
    const authentication = { scheme: 'Bearer', credentials: `cred-${randomUUID()}` };
    const client = await v1Client(`${t.url}/a2a/${agent.id}`, key);
    const waiting = (await client.sendMessage(sendRequest(textMessage('start')))) as Task;
    const config = await client.createTaskPushNotificationConfig({ tenant: '', id: '', taskId: waiting.id, url: `${receiver.url}/sealed`, token, authentication });
    expect(config).toMatchObject({ token, authentication });

    const [row] = (await stored(waiting.id)).configs;
    expect(row).toMatchObject({ id: config.id, token: expect.stringMatching(/^sealed:v1:/), authentication: expect.stringMatching(/^sealed:v1:/) });
    for (const secret of [token, authentication.credentials]) expect(JSON.stringify(row)).not.toContain(secret);
    expect(await client.getTaskPushNotificationConfig({ tenant: '', taskId: waiting.id, id: config.id })).toMatchObject({ token, authentication });
    expect((await client.listTaskPushNotificationConfig({ tenant: '', taskId: waiting.id, pageSize: 0, pageToken: '' })).configs).toMatchObject([{ id: config.id, token, authentication }]);

    await client.sendMessage(sendRequest(textMessage('go on', { taskId: waiting.id })));
    const pushes = await waitFor('the completed task pushed', () => {
      const received = pushesFor(waiting.id, '/sealed');
      return received.some((request) => stateOf(request.body) === TaskState.TASK_STATE_COMPLETED) && received;
    });
    for (const request of pushes) {
      expect(request.headers['x-a2a-notification-token']).toBe(token);
      expect(request.headers.authorization).toBe(`Bearer ${authentication.credentials}`);
    }
    const { payloads } = await stored(waiting.id);
    expect(payloads.length).toBeGreaterThanOrEqual(pushes.length);
    for (const payload of payloads) {
      expect(JSON.parse(payload)).toMatchObject({ configId: config.id, token: expect.stringMatching(/^sealed:v1:/), authentication: expect.stringMatching(/^sealed:v1:/) });
      for (const secret of [token, authentication.credentials]) expect(payload).not.toContain(secret);
    }
  });

  it('refuses a URL the SSRF guard refuses, naming why', async () => {
    const client = await v1Client(`${t.url}/a2a/${agent.id}`, key);
    const task = (await client.sendMessage(sendRequest(textMessage('start'), true))) as Task;
    await expect(client.createTaskPushNotificationConfig({ tenant: '', id: '', taskId: task.id, url: 'ftp://example.com/x', token: '', authentication: undefined })).rejects.toThrow(/https/);
    await expect(client.createTaskPushNotificationConfig({ tenant: '', id: '', taskId: 'tsk_missing', url: `${receiver.url}/x`, token: '', authentication: undefined })).rejects.toThrow(/not found/);
  });

  // Last: it restarts the server.
  it('seals a config an earlier version stored in clear when the server starts, and delivers with it and with a payload queued in clear', async () => {
    const client = await v1Client(`${t.url}/a2a/${agent.id}`, key);
    const waiting = (await client.sendMessage(sendRequest(textMessage('start')))) as Task;
    // As a version before sealing wrote them.
    const token = `plain-tok-${randomUUID()}`;
    const authentication = { scheme: 'Basic', credentials: `plain-cred-${randomUUID()}` };
    const configId = `apn_${randomUUID().replaceAll('-', '')}`;
    const created_at = new Date().toISOString();
    const plainRow = { id: configId, account_id: accountId, task_id: waiting.id, url: `${receiver.url}/plain`, token, authentication: JSON.stringify(authentication), created_at };
    await t.storage.db.insertInto('a2a_push_configs').values(plainRow).execute();
    expect(await client.getTaskPushNotificationConfig({ tenant: '', taskId: waiting.id, id: configId })).toMatchObject({ token, authentication });

    const reuse = { dataDir: t.dataDir, databaseUrl: t.databaseUrl };
    await t.close({ keepData: true });
    t = await startApp(backend, ENV, { reuse });
    const [row] = (await stored(waiting.id)).configs;
    expect(row).toMatchObject({ id: configId, token: expect.stringMatching(/^sealed:v1:/), authentication: expect.stringMatching(/^sealed:v1:/) });
    for (const secret of [token, authentication.credentials]) expect(JSON.stringify(row)).not.toContain(secret);

    const restarted = await v1Client(`${t.url}/a2a/${agent.id}`, key);
    expect(await restarted.getTaskPushNotificationConfig({ tenant: '', taskId: waiting.id, id: configId })).toMatchObject({ token, authentication });
    await restarted.sendMessage(sendRequest(textMessage('go on', { taskId: waiting.id })));
    const completed = await waitFor('the completed task pushed', () => pushesFor(waiting.id, '/plain').find((request) => stateOf(request.body) === TaskState.TASK_STATE_COMPLETED));
    expect(completed.headers['x-a2a-notification-token']).toBe(token);
    expect(completed.headers.authorization).toBe(`Basic ${authentication.credentials}`);

    const queuedInClear = { body: completed.body, token, authentication };
    await t.services.outbox.enqueue(t.storage.db, { kind: 'a2a.push_notification', accountId, sourceId: waiting.id, target: `${receiver.url}/queued-in-clear`, payload: queuedInClear });
    t.services.outbox.wake();
    const delivered = await waitFor('the payload queued in clear delivered', () => receiver.requests.find((request) => request.path === '/queued-in-clear'));
    expect(delivered.headers['x-a2a-notification-token']).toBe(token);
    expect(delivered.headers.authorization).toBe(`Basic ${authentication.credentials}`);
    expect(delivered.body).toBe(completed.body);
  });
});

describe('A2A push notifications without private targets allowed', () => {
  let t: TestApp;
  afterAll(async () => {
    await t?.close();
  });

  it('refuses a loopback URL at creation', async () => {
    t = await startApp('sqlite', { PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50', PADDOCK_ALLOW_HTTP_WEBHOOKS: 'true' });
    const key = (await t.signup()).key;
    const agent = await registerAgent(t.url, key, { pipeline_id: (await createPipeline(t.url, key, { stages: STAGES })).id, skills: [SKILL] });
    const client = await v1Client(`${t.url}/a2a/${agent.id}`, key);
    const task = (await client.sendMessage(sendRequest(textMessage('start'), true))) as Task;
    await expect(client.createTaskPushNotificationConfig({ tenant: '', id: '', taskId: task.id, url: 'http://127.0.0.1:9/x', token: '', authentication: undefined })).rejects.toThrow(
      /non-public address/,
    );
  });
});
