// A2A push notifications from a running Paddock to a real HTTP receiver, on every backend: configs
// created with the SDK client (and inside SendMessage's configuration) are listed, read and deleted;
// every status change of the task POSTs the task (a v1.0 StreamResponse) with the config's token and
// authentication through the outbox; a URL the SSRF guard refuses is an invalid-params error.
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

describe.each(BACKENDS)('A2A push notifications on %s', (backend) => {
  let t: TestApp;
  let key: string;
  let agent: any;
  let receiver: HttpReceiver;

  beforeAll(async () => {
    t = await startApp(backend, {
      PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50',
      PADDOCK_OUTBOX_POLL_INTERVAL_MS: '50',
      PADDOCK_ALLOW_PRIVATE_WEBHOOKS: 'true',
      PADDOCK_ALLOW_HTTP_WEBHOOKS: 'true',
    });
    key = (await t.signup()).key;
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

  it('refuses a URL the SSRF guard refuses, naming why', async () => {
    const client = await v1Client(`${t.url}/a2a/${agent.id}`, key);
    const task = (await client.sendMessage(sendRequest(textMessage('start'), true))) as Task;
    await expect(client.createTaskPushNotificationConfig({ tenant: '', id: '', taskId: task.id, url: 'ftp://example.com/x', token: '', authentication: undefined })).rejects.toThrow(/https/);
    await expect(client.createTaskPushNotificationConfig({ tenant: '', id: '', taskId: 'tsk_missing', url: `${receiver.url}/x`, token: '', authentication: undefined })).rejects.toThrow(/not found/);
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
