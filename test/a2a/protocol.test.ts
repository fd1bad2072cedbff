// The A2A protocol endpoint of Paddock agents, driven by the A2A SDK's own clients against the running
// server on every backend: the card (v1.0 and v0.3), bearer-key authentication, send, stream, get, list
// and cancel over JSON-RPC v1.0, HTTP+JSON and JSON-RPC v0.3, the input-required round trip, resubscribe,
// and the invalid-params errors of the message mapping. Pipelines of await_approval and gate stages
// need no runtime.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TaskState, type StreamResponse, type Task } from '@a2a-js/sdk';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createPipeline, ECHO_SKILL, registerAgent } from '../helpers/a2a.js';
import { collect, dataMessage, sendRequest, textMessage, v03Transport, v1Client, type Binding } from '../helpers/a2a-protocol.js';
import { waitFor } from '../helpers/wait-for.js';

const ASK = { name: 'ask', type: 'await_approval', config: { message: 'which repository?' } };
const AFTER = { name: 'after', type: 'gate', config: { expression: 'true' }, depends_on: ['ask'] };
const TEXT_SKILL = { id: 'chat', name: 'Chat', description: 'Takes text.', tags: [], input_schema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } };

const stateOfEvent = (event: StreamResponse) =>
  event.payload?.$case === 'task' ? event.payload.value.status?.state : event.payload?.$case === 'statusUpdate' ? event.payload.value.status?.state : undefined;

describe.each(BACKENDS)('A2A protocol on %s', (backend) => {
  let t: TestApp;
  let key: string;
  let quick: any;
  let asking: any;
  const endpoint = (agent: any) => `${t.url}/a2a/${agent.id}`;

  beforeAll(async () => {
    t = await startApp(backend, { PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50' });
    key = (await t.signup()).key;
    quick = await registerAgent(t.url, key, { public: true, skills: [TEXT_SKILL] });
    asking = await registerAgent(t.url, key, { pipeline_id: (await createPipeline(t.url, key, { stages: [ASK, AFTER] })).id, skills: [TEXT_SKILL, ECHO_SKILL] });
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('agent card', () => {
    it('serves the v1.0 card to A2A-Version 1.0 clients, open for a public agent', async () => {
      const reply = await t.request('GET', `/a2a/${quick.id}/.well-known/agent-card.json`, { headers: { 'a2a-version': '1.0' } });
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body).toMatchObject({
        name: quick.name,
        description: quick.description,
        version: String(quick.version),
        capabilities: { streaming: true, pushNotifications: true },
        supportedInterfaces: [
          { url: endpoint(quick), protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
          { url: endpoint(quick), protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
          { url: endpoint(quick), protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
        ],
        securitySchemes: { paddock_api_key: { httpAuthSecurityScheme: { scheme: 'Bearer' } } },
        securityRequirements: [{ schemes: { paddock_api_key: {} } }],
        skills: [{ id: 'chat', name: 'Chat', description: 'Takes text.' }],
      });
      // The registry's own card names the same endpoint.
      expect((await t.request('GET', `/.well-known/agent/${quick.id}.json`)).body.url).toBe(endpoint(quick));
    });

    it('serves the v0.3 card when no version is asked for', async () => {
      const reply = await t.request('GET', `/a2a/${quick.id}/.well-known/agent-card.json`);
      expect(reply.status, reply.text).toBe(200);
      expect(reply.body).toMatchObject({
        protocolVersion: '0.3.0',
        url: endpoint(quick),
        preferredTransport: 'JSONRPC',
        capabilities: { streaming: true, pushNotifications: true },
        securitySchemes: { paddock_api_key: { type: 'http', scheme: 'bearer' } },
        security: [{ paddock_api_key: [] }],
      });
    });

    it("answers a private agent's card only to a key of its account", async () => {
      const path = `/a2a/${asking.id}/.well-known/agent-card.json`;
      expect((await t.request('GET', path)).status).toBe(404);
      expect((await t.request('GET', path, { token: (await t.signup()).key })).status).toBe(404);
      const own = await t.request('GET', path, { token: key, headers: { 'a2a-version': '1.0' } });
      expect(own.status, own.text).toBe(200);
      expect(own.body.skills.map((skill: any) => skill.id)).toEqual(['chat', 'echo']);
      expect((await t.request('GET', '/a2a/agt_nope/.well-known/agent-card.json')).status).toBe(404);
    });
  });

  describe('authentication', () => {
    const rpc = (agent: any, token?: string) =>
      t.request('POST', `/a2a/${agent.id}`, { token, headers: { 'a2a-version': '1.0' }, body: { jsonrpc: '2.0', id: 1, method: 'GetTask', params: { id: 'tsk_x' } } });

    it('answers 401 without a key or with an invalid one, as a JSON-RPC error', async () => {
      for (const token of [undefined, 'svc_sk_notakey']) {
        const reply = await rpc(quick, token);
        expect(reply.status, reply.text).toBe(401);
        expect(reply.headers.get('www-authenticate')).toMatch(/^Bearer/);
        expect(reply.body).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
      }
      const rest = await t.request('GET', `/a2a/${quick.id}/tasks`, { headers: { 'a2a-version': '1.0' } });
      expect(rest.status).toBe(401);
      expect(rest.body).toMatchObject({ error: { code: 401, status: 'UNAUTHENTICATED' } });
      await expect((await v1Client(endpoint(quick), null)).sendMessage(sendRequest(textMessage('hi')))).rejects.toThrow(/missing API key/);
    });

    it("refuses another account's key: 403 on a public agent, 404 on a private one", async () => {
      const other = (await t.signup()).key;
      const onPublic = await rpc(quick, other);
      expect(onPublic.status, onPublic.text).toBe(403);
      expect(onPublic.body.error.message).toMatch(/cross-account delegation is not offered/);
      expect((await rpc(asking, other)).status).toBe(404);
      const client = await v1Client(endpoint(quick), other);
      await expect(client.sendMessage(sendRequest(textMessage('hi')))).rejects.toThrow();
      // No task was created for the other account's call.
      expect((await t.request('GET', `/v1/a2a/tasks?agent_id=${quick.id}`, { token: other })).body.tasks ?? []).toEqual([]);
    });
  });

  it('refuses tasks for a disabled agent, naming why, and shows its card only to its account', async () => {
    const disabled = await registerAgent(t.url, key, { public: true, skills: [TEXT_SKILL] });
    expect((await t.request('PUT', `/v1/a2a/agents/${disabled.id}`, { token: key, body: { enabled: false } })).status).toBe(200);
    expect((await t.request('GET', `/a2a/${disabled.id}/.well-known/agent-card.json`)).status).toBe(404);
    const client = await v1Client(endpoint(disabled), key);
    await expect(client.sendMessage(sendRequest(textMessage('hi')))).rejects.toThrow(/disabled/);
    const raw = await t.request('POST', `/a2a/${disabled.id}`, {
      token: key,
      headers: { 'a2a-version': '1.0' },
      body: { jsonrpc: '2.0', id: 3, method: 'SendMessage', params: { message: { messageId: 'm', role: 'ROLE_USER', parts: [{ text: 'hi' }] } } },
    });
    expect(raw.body.error.data).toContainEqual(expect.objectContaining({ metadata: { paddock_code: 'agent_disabled' } }));
  });

  describe.each(['JSONRPC', 'HTTP+JSON'] as Binding[])('v1.0 over %s', (binding) => {
    it('sends a message: the task runs the pipeline and the answer is the completed task', async () => {
      const client = await v1Client(endpoint(quick), key, binding);
      const task = (await client.sendMessage(sendRequest(textMessage('hello there')))) as Task;
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(task.metadata).toMatchObject({ paddock_task_id: task.id, skill_id: 'chat', cost_usd: 0 });
      expect(task.metadata?.run_id).toMatch(/^run_/);
      const paddock = await t.request('GET', `/v1/a2a/tasks/${task.id}`, { token: key });
      expect(paddock.body).toMatchObject({ status: 'completed', input: { text: 'hello there' }, context_id: task.contextId, skill_id: 'chat' });

      const got = await client.getTask({ tenant: '', id: task.id });
      expect(got).toMatchObject({ id: task.id, contextId: task.contextId, status: { state: TaskState.TASK_STATE_COMPLETED } });
      const listed = await client.listTasks({ tenant: '', contextId: task.contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined });
      expect(listed.tasks.map((one) => one.id)).toEqual([task.id]);
      expect(listed.totalSize).toBe(1);
      const none = await client.listTasks({ tenant: '', contextId: task.contextId, status: TaskState.TASK_STATE_FAILED, pageToken: '', statusTimestampAfter: undefined });
      expect(none.tasks).toEqual([]);
      await expect(client.listTasks({ tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 101, pageToken: '', statusTimestampAfter: undefined })).rejects.toThrow(
        /pageSize/,
      );
      // Pages: pageToken is where the next one starts.
      await client.sendMessage(sendRequest(textMessage('second', { contextId: task.contextId })));
      const first = await client.listTasks({ tenant: '', contextId: task.contextId, status: TaskState.TASK_STATE_UNSPECIFIED, pageSize: 1, pageToken: '', statusTimestampAfter: undefined });
      expect(first).toMatchObject({ totalSize: 2, pageSize: 1 });
      const second = await client.listTasks({
        tenant: '',
        contextId: task.contextId,
        status: TaskState.TASK_STATE_UNSPECIFIED,
        pageSize: 1,
        pageToken: first.nextPageToken,
        statusTimestampAfter: undefined,
      });
      expect(second.nextPageToken).toBe('');
      expect(new Set([...first.tasks, ...second.tasks].map((one) => one.id)).size).toBe(2);
    });

    it('names the problem with the message as an invalid-params error: schema, unknown skill, no skill among several', async () => {
      const client = await v1Client(endpoint(asking), key, binding);
      await expect(client.sendMessage(sendRequest(dataMessage({ query: 42 }, { metadata: { skill_id: 'echo' } })))).rejects.toThrow(/query/);
      await expect(client.sendMessage(sendRequest(textMessage('x', { metadata: { skill_id: 'nope' } })))).rejects.toThrow(/nope.*chat, echo/);
      await expect(client.sendMessage(sendRequest(textMessage('x')))).rejects.toThrow(/2 skills.*chat, echo/);
      await expect(client.getTask({ tenant: '', id: 'tsk_missing' })).rejects.toThrow(/not found/i);
    });

    it('goes input-required on await_approval and completes once a message answers it', async () => {
      const client = await v1Client(endpoint(asking), key, binding);
      const waiting = (await client.sendMessage(sendRequest(textMessage('start', { metadata: { skill_id: 'chat' } })))) as Task;
      expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(waiting.status?.message?.parts[0].content).toEqual({ $case: 'text', value: 'which repository?' });

      const done = (await client.sendMessage(sendRequest(textMessage('paddock', { taskId: waiting.id, contextId: waiting.contextId })))) as Task;
      expect(done.id).toBe(waiting.id);
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
      expect(done.history.map((message) => message.parts[0].content)).toContainEqual({ $case: 'text', value: 'paddock' });
      // A finished task takes no more messages.
      await expect(client.sendMessage(sendRequest(textMessage('again', { taskId: waiting.id })))).rejects.toThrow(/ended/);
    });

    it('takes several turns: each answer runs on to the next question, then to the end', async () => {
      const twoQuestions = await registerAgent(t.url, key, {
        skills: [TEXT_SKILL],
        pipeline_id: (await createPipeline(t.url, key, { stages: [ASK, { name: 'again', type: 'await_approval', config: { message: 'which branch?' }, depends_on: ['ask'] }] })).id,
      });
      const client = await v1Client(endpoint(twoQuestions), key, binding);
      const first = (await client.sendMessage(sendRequest(textMessage('start')))) as Task;
      expect(first.status?.message?.parts[0].content).toEqual({ $case: 'text', value: 'which repository?' });
      const second = (await client.sendMessage(sendRequest(textMessage('paddock', { taskId: first.id })))) as Task;
      expect(second.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(second.status?.message?.parts[0].content).toEqual({ $case: 'text', value: 'which branch?' });
      const done = (await client.sendMessage(sendRequest(textMessage('main', { taskId: first.id })))) as Task;
      expect(done.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    });

    it('streams the task, then its status updates until input is required, and again after the answer', async () => {
      const client = await v1Client(endpoint(asking), key, binding);
      const first = await collect(client.sendMessageStream(sendRequest(textMessage('start', { metadata: { skill_id: 'chat' } }))));
      expect(first[0].payload?.$case).toBe('task');
      expect(stateOfEvent(first[0])).toBe(TaskState.TASK_STATE_SUBMITTED);
      const taskId = (first[0].payload!.value as Task).id;
      expect(first.slice(1).every((event) => event.payload?.$case === 'statusUpdate')).toBe(true);
      expect(first.map(stateOfEvent)).toContain(TaskState.TASK_STATE_WORKING);
      expect(stateOfEvent(first.at(-1)!)).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);

      const second = await collect(client.sendMessageStream(sendRequest(textMessage('go on', { taskId }))));
      expect(second[0].payload?.$case).toBe('task');
      expect(stateOfEvent(second.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
      // Only what happened after the answer: no second input-required.
      expect(second.slice(1).map(stateOfEvent)).not.toContain(TaskState.TASK_STATE_INPUT_REQUIRED);
    });

    it('cancels a task (and its run); a second cancel is task-not-cancelable', async () => {
      const client = await v1Client(endpoint(asking), key, binding);
      const waiting = (await client.sendMessage(sendRequest(textMessage('start', { metadata: { skill_id: 'chat' } }), true))) as Task;
      await waitFor('input required', async () => (await client.getTask({ tenant: '', id: waiting.id })).status?.state === TaskState.TASK_STATE_INPUT_REQUIRED);
      const canceled = await client.cancelTask({ tenant: '', id: waiting.id, metadata: {} });
      expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      const run = await t.request('GET', `/v1/pipelines/${asking.pipeline_id}/runs/${canceled.metadata?.run_id}`, { token: key });
      expect(run.body.status).toBe('canceled');
      await expect(client.cancelTask({ tenant: '', id: waiting.id, metadata: {} })).rejects.toThrow(/ended/);
    });

    it('resubscribes: the task as it is, then what happens from now on', async () => {
      const client = await v1Client(endpoint(asking), key, binding);
      const waiting = (await client.sendMessage(sendRequest(textMessage('start', { metadata: { skill_id: 'chat' } })))) as Task;
      expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      // Input-required ends a stream: subscribing shows the task at once and then waits for the answer.
      const subscription = collect(client.resubscribeTask({ tenant: '', id: waiting.id }));
      await new Promise((resolve) => setTimeout(resolve, 300));
      await client.sendMessage(sendRequest(textMessage('go on', { taskId: waiting.id }), true));
      const events = await subscription;
      expect(events[0].payload?.$case).toBe('task');
      expect(stateOfEvent(events[0])).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect(stateOfEvent(events.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);
      // A finished task: just the task.
      const after = await collect(client.resubscribeTask({ tenant: '', id: waiting.id }));
      expect(after.map((event) => event.payload?.$case)).toEqual(['task']);
    });
  });

  describe('resuming with Last-Event-ID', () => {
    /** The SSE events of a response: their `id` (null without one) and parsed data. */
    async function sseEvents(response: Response) {
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      return (await response.text())
        .split('\n\n')
        .filter((block) => block.includes('data: '))
        .map((block) => ({ id: /^id: (\d+)$/m.exec(block)?.[1] ?? null, data: JSON.parse(/^data: (.*)$/m.exec(block)![1]) }));
    }
    const subscribe = (taskId: string, lastEventId: string) =>
      fetch(`${endpoint(quick)}/tasks/${taskId}:subscribe`, { headers: { authorization: `Bearer ${key}`, 'a2a-version': '1.0', 'last-event-id': lastEventId } });

    it('replays the events after Last-Event-ID, each with its sequence as id, without losing or repeating any', async () => {
      const client = await v1Client(endpoint(quick), key);
      const task = (await client.sendMessage(sendRequest(textMessage('hello')))) as Task;
      expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);

      const all = await sseEvents(await subscribe(task.id, '0'));
      expect(all[0].id).toBeNull();
      expect(all[0].data.task.id).toBe(task.id);
      const ids = all.slice(1).flatMap((event) => (event.id === null ? [] : [Number(event.id)]));
      expect(ids.length).toBeGreaterThanOrEqual(2);
      expect([...ids].sort((a, b) => a - b)).toEqual(ids);
      expect(all.at(-1)!.data.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');

      const resumed = await sseEvents(await subscribe(task.id, String(ids[0])));
      expect(resumed.slice(1).flatMap((event) => (event.id === null ? [] : [Number(event.id)]))).toEqual(ids.slice(1));
      expect(resumed.at(-1)!.data.statusUpdate.status.state).toBe('TASK_STATE_COMPLETED');
    });
  });

  describe('v0.3 JSON-RPC', () => {
    it('serves message/send, tasks/get, message/stream and tasks/cancel to the v0.3 client', async () => {
      const legacy = v03Transport(endpoint(asking), key);
      const waiting = (await legacy.sendMessage(sendRequest(textMessage('start', { metadata: { skill_id: 'chat' } })))) as Task;
      expect(waiting.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      expect((await legacy.getTask({ tenant: '', id: waiting.id })).status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
      const streamed = await collect(legacy.sendMessageStream(sendRequest(textMessage('go', { taskId: waiting.id }))));
      expect(stateOfEvent(streamed.at(-1)!)).toBe(TaskState.TASK_STATE_COMPLETED);

      const other = (await legacy.sendMessage(sendRequest(textMessage('start', { metadata: { skill_id: 'chat' } })))) as Task;
      expect((await legacy.cancelTask({ tenant: '', id: other.id, metadata: {} })).status?.state).toBe(TaskState.TASK_STATE_CANCELED);
      const resubscribed = await collect(legacy.resubscribeTask({ tenant: '', id: other.id }));
      expect(resubscribed.map((event) => event.payload?.$case)).toEqual(['task']);
      expect(stateOfEvent(resubscribed[0])).toBe(TaskState.TASK_STATE_CANCELED);
    });

    it('answers v0.3 method names on the wire, and v1.0 names only with A2A-Version 1.0', async () => {
      const body = (method: string) => ({ jsonrpc: '2.0', id: 7, method, params: { id: 'tsk_missing' } });
      const legacy = await t.request('POST', `/a2a/${quick.id}`, { token: key, body: body('tasks/get') });
      expect(legacy.body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32001 } });
      const v1 = await t.request('POST', `/a2a/${quick.id}`, { token: key, headers: { 'a2a-version': '1.0' }, body: body('GetTask') });
      expect(v1.body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32001 } });
      const unknown = await t.request('POST', `/a2a/${quick.id}`, { token: key, headers: { 'a2a-version': '1.0' }, body: body('tasks/get') });
      expect(unknown.body.error.code).toBe(-32601);
      const unsupported = await t.request('POST', `/a2a/${quick.id}`, { token: key, headers: { 'a2a-version': '2.0' }, body: body('GetTask') });
      expect(unsupported.body.error.message).toMatch(/not supported/);
      const garbage = await t.request('POST', `/a2a/${quick.id}`, { token: key, headers: { 'a2a-version': '1.0' }, raw: '{nope', contentType: 'application/json' });
      expect(garbage.status).toBe(200);
      expect(garbage.body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: expect.any(Number), message: expect.stringMatching(/JSON/i) } });
    });
  });
});
