// Tasks through the real HTTP API on every backend, with pipelines that need no runtime (gates and
// approvals): status following the run, input_needed answered by a message, the event log, output from
// run state, cancel, list, and every refusal with the agent-delegation error body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createPipeline, registerAgent } from '../helpers/a2a.js';
import { waitFor } from '../helpers/wait-for.js';

const APPROVAL_STAGES = [
  { name: 'ask', type: 'await_approval', config: { message: 'Which tone should the summary take?' } },
  { name: 'after', type: 'gate', depends_on: ['ask'], config: { expression: 'true' } },
];

describe.each(BACKENDS)('A2A tasks on %s', (backend) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startApp(backend, { PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50' });
    key = (await t.signup()).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  const approvalAgent = async (overrides: Record<string, unknown> = {}) => {
    const pipeline = await createPipeline(t.url, key, { stages: APPROVAL_STAGES });
    return registerAgent(t.url, key, { pipeline_id: pipeline.id, ...overrides });
  };
  const createTask = async (agentId: string, body: Record<string, unknown> = { skill_id: 'echo', input: { query: 'hello' } }) => {
    const reply = await t.request('POST', `/v1/a2a/agents/${agentId}/tasks`, { token: key, body });
    expect(reply.status, reply.text).toBe(201);
    return reply.body;
  };
  const readTask = async (taskId: string) => {
    const reply = await t.request('GET', `/v1/a2a/tasks/${taskId}`, { token: key });
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  };
  const waitForStatus = (taskId: string, status: string) =>
    waitFor(`task ${taskId} to be ${status}`, async () => {
      const reply = await t.request('GET', `/v1/a2a/tasks/${taskId}/events?limit=1000`, { token: key });
      const last = reply.body.events.filter((event: any) => event.kind === 'status').at(-1);
      if (last?.data.status !== status) throw new Error(`last status event: ${JSON.stringify(last)}`);
      return readTask(taskId);
    });
  const eventsOf = async (taskId: string) => (await t.request('GET', `/v1/a2a/tasks/${taskId}/events?limit=1000`, { token: key })).body.events as any[];

  it('creates a pending task over a new run, waits for input, is answered by a message, and completes with the output from run state', async () => {
    const agent = await approvalAgent();
    const task = await createTask(agent.id, { skill_id: 'echo', input: { query: 'summarize this' }, priority: 7 });
    expect(task).toMatchObject({
      agent_id: agent.id,
      status: 'pending',
      status_message: null,
      skill_id: 'echo',
      input: { query: 'summarize this' },
      priority: 7,
      output: null,
      artifacts: [],
      cost_usd: 0,
    });
    expect(task.id).toMatch(/^tsk_/);
    expect(task.run_id).toMatch(/^run_/);
    expect(task.session_id).toMatch(/^ses_/);
    expect(task.progress).toEqual({ percentage: 0, current_step: null, message: null });

    // The run received the input: run state key task_input, env A2A_* on every stage.
    const run = await t.request('GET', `/v1/pipelines/${agent.pipeline_id}/runs/${task.run_id}`, { token: key });
    expect(run.body.trigger).toBe('a2a');
    expect(run.body.input.env).toEqual({ A2A_TASK_ID: task.id, A2A_SKILL_ID: 'echo', A2A_INPUT: JSON.stringify({ query: 'summarize this' }) });
    const input = await t.request('GET', `/v1/pipelines/${agent.pipeline_id}/runs/${task.run_id}/state/task_input`, { token: key });
    expect(input.status).toBe(200);
    expect(JSON.parse(input.body.value)).toEqual({ query: 'summarize this' });

    const waiting = await waitForStatus(task.id, 'input_needed');
    expect(waiting.status).toBe('input_needed');
    expect(waiting.status_message).toBe('Which tone should the summary take?');
    expect(waiting.started_at).not.toBeNull();
    expect(waiting.progress).toMatchObject({ percentage: 0, current_step: 'ask' });
    const asked = await t.request('GET', `/v1/a2a/tasks/${task.id}/messages`, { token: key });
    expect(asked.body.messages).toEqual([expect.objectContaining({ role: 'agent', parts: [{ type: 'text', text: 'Which tone should the summary take?' }] })]);

    // What a stage would write as the task's output.
    const put = await t.request('PUT', `/v1/pipelines/${agent.pipeline_id}/runs/${task.run_id}/state/task_output`, { token: key, body: { value: { summary: 'short', tone: 'dry' } } });
    expect(put.status, put.text).toBe(200);

    const sent = await t.request('POST', `/v1/a2a/tasks/${task.id}/messages`, {
      token: key,
      body: {
        parts: [
          { type: 'text', text: 'Dry, please.' },
          { type: 'data', data: { tone: 'dry' }, name: 'prefs' },
        ],
      },
    });
    expect(sent.status, sent.text).toBe(201);
    expect(sent.body).toMatchObject({
      task_id: task.id,
      role: 'user',
      parts: [
        { type: 'text', text: 'Dry, please.' },
        { type: 'data', data: { tone: 'dry' }, name: 'prefs' },
      ],
    });
    expect(sent.body.id).toMatch(/^msg_/);

    const done = await waitForStatus(task.id, 'completed');
    expect(done).toMatchObject({ status: 'completed', output: { summary: 'short', tone: 'dry' }, progress: { percentage: 100 } });
    expect(done.completed_at).not.toBeNull();

    // The reply is in run state for later stages, and the approval records who answered.
    const reply = await t.request('GET', `/v1/pipelines/${agent.pipeline_id}/runs/${task.run_id}/state/task_reply`, { token: key });
    expect(JSON.parse(reply.body.value)).toEqual(sent.body.parts);
    const stages = await t.request('GET', `/v1/pipelines/${agent.pipeline_id}/runs/${task.run_id}/stages`, { token: key });
    expect(stages.body.find((stage: any) => stage.name === 'ask').approval).toMatchObject({ decision: 'approve', decided_by: `a2a_task:${task.id}`, comment: 'Dry, please.' });

    const events = await eventsOf(task.id);
    expect(events.map((event) => event.sequence)).toEqual(events.map((_, index) => index + 1));
    expect(events.map((event) => (event.kind === 'status' ? `status:${event.data.status}` : event.kind === 'message' ? `message:${event.data.role}` : event.kind))).toEqual([
      'status:pending',
      'status:running',
      'status:input_needed',
      'message:agent',
      'message:user',
      'status:running',
      'progress',
      'progress',
      'progress',
      'status:completed',
      'complete',
    ]);
    expect(events.at(-1).data).toEqual({ status: 'completed', output: { summary: 'short', tone: 'dry' } });
    const progress = events.filter((event) => event.kind === 'progress').map((event) => event.data);
    expect(progress[0]).toEqual({ percentage: 50, current_step: 'ask', message: 'stage ask completed (1 of 2 stages finished)' });
    expect(progress[1]).toMatchObject({ percentage: 50, current_step: 'after' });
    expect(progress[2]).toMatchObject({ percentage: 100 });
  });

  it('a data part {"decision": "reject"} rejects the approval: the task ends canceled', async () => {
    const agent = await approvalAgent();
    const task = await createTask(agent.id);
    await waitForStatus(task.id, 'input_needed');
    const sent = await t.request('POST', `/v1/a2a/tasks/${task.id}/messages`, {
      token: key,
      body: {
        parts: [
          { type: 'data', data: { decision: 'reject' } },
          { type: 'text', text: 'not now' },
        ],
      },
    });
    expect(sent.status, sent.text).toBe(201);
    const ended = await waitForStatus(task.id, 'canceled');
    expect(ended.status_message).toContain('not now');
    expect((await eventsOf(task.id)).at(-1)).toMatchObject({ kind: 'error', data: { status: 'canceled' } });
  });

  it('cancels with a reason, then refuses a second cancel and messages with 409', async () => {
    const agent = await approvalAgent();
    const task = await createTask(agent.id);
    const canceled = await t.request('POST', `/v1/a2a/tasks/${task.id}/cancel`, { token: key, body: { reason: 'no longer needed' } });
    expect(canceled.status, canceled.text).toBe(200);
    expect(canceled.body).toEqual({ id: task.id, status: 'canceled', status_message: 'no longer needed' });
    const run = await t.request('GET', `/v1/pipelines/${agent.pipeline_id}/runs/${task.run_id}`, { token: key });
    expect(run.body).toMatchObject({ status: 'canceled', error: 'no longer needed' });
    expect((await eventsOf(task.id)).slice(-2).map((event) => event.kind)).toEqual(['status', 'error']);

    const again = await t.request('POST', `/v1/a2a/tasks/${task.id}/cancel`, { token: key, body: { reason: 'again' } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'conflict' });
    const message = await t.request('POST', `/v1/a2a/tasks/${task.id}/messages`, { token: key, body: { parts: [{ type: 'text', text: 'hello?' }] } });
    expect(message.status).toBe(409);
    expect(message.body.error.message).toContain('canceled');
  });

  it('stores a message to a running task in task_reply, where a later attempt of a stage reads it', async () => {
    const pipeline = await createPipeline(t.url, key, {
      stages: [{ name: 'wait-reply', type: 'gate', config: { expression: "'task_reply' in state" }, retry: { max_attempts: 20, backoff: '500ms', max_backoff: '500ms' } }],
    });
    const agent = await registerAgent(t.url, key, { pipeline_id: pipeline.id });
    const task = await createTask(agent.id);
    await waitForStatus(task.id, 'running');
    const sent = await t.request('POST', `/v1/a2a/tasks/${task.id}/messages`, {
      token: key,
      body: { parts: [{ type: 'file', name: 'notes.txt', mime_type: 'text/plain', data: Buffer.from('hi').toString('base64') }] },
    });
    expect(sent.status, sent.text).toBe(201);
    const reply = await t.request('GET', `/v1/pipelines/${agent.pipeline_id}/runs/${task.run_id}/state/task_reply`, { token: key });
    expect(JSON.parse(reply.body.value)).toEqual([{ type: 'file', name: 'notes.txt', mime_type: 'text/plain', data: 'aGk=' }]);
    await waitForStatus(task.id, 'completed');
    expect((await eventsOf(task.id)).filter((event) => event.kind === 'message').map((event) => event.data)).toEqual([{ role: 'user', parts: sent.body.parts }]);
  });

  it('publishes every status change to each registered publisher inside its transaction, and wakes readers of the log after the commit', async () => {
    const seen: { type: string; status: string; inTransaction: boolean; taskId: string }[] = [];
    t.services.a2a.publishers.add({
      async publish(trx, change) {
        seen.push({ type: change.type, status: change.task.status, inTransaction: trx.isTransaction, taskId: change.task.id });
      },
    });
    const agent = await approvalAgent();
    const task = await createTask(agent.id);
    await waitForStatus(task.id, 'input_needed');
    const woken = t.services.a2a.signals.next(task.id, 10_000).then(() => Date.now());
    const sentAt = Date.now();
    expect((await t.request('POST', `/v1/a2a/tasks/${task.id}/messages`, { token: key, body: { parts: [{ type: 'text', text: 'go' }] } })).status).toBe(201);
    expect((await woken) - sentAt).toBeLessThan(5_000);
    await waitForStatus(task.id, 'completed');
    const mine = seen.filter((change) => change.taskId === task.id);
    expect(mine.map((change) => [change.type, change.status])).toEqual([
      ['task.created', 'pending'],
      ['task.running', 'running'],
      ['task.input_needed', 'input_needed'],
      ['task.running', 'running'],
      ['task.completed', 'completed'],
    ]);
    expect(mine.every((change) => change.inTransaction)).toBe(true);
  });

  it('lists tasks newest first with filters, total and paging', async () => {
    const other = await t.signup();
    const agent = await approvalAgent();
    const first = await createTask(agent.id);
    const second = await createTask(agent.id);
    await t.request('POST', `/v1/a2a/tasks/${first.id}/cancel`, { token: key, body: { reason: 'x' } });
    const all = await t.request('GET', `/v1/a2a/tasks?agent_id=${agent.id}`, { token: key });
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ total: 2, limit: 20, offset: 0 });
    expect(all.body.tasks.map((task: any) => task.id)).toEqual([second.id, first.id]);
    const canceled = await t.request('GET', `/v1/a2a/tasks?agent_id=${agent.id}&status=canceled`, { token: key });
    expect(canceled.body.tasks.map((task: any) => task.id)).toEqual([first.id]);
    const paged = await t.request('GET', `/v1/a2a/tasks?agent_id=${agent.id}&limit=1&offset=1`, { token: key });
    expect(paged.body).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(paged.body.tasks.map((task: any) => task.id)).toEqual([first.id]);
    const byContext = await t.request('GET', `/v1/a2a/tasks?context_id=${second.context_id}`, { token: key });
    expect(byContext.body.tasks.map((task: any) => task.id)).toEqual([second.id]);
    // Another account sees none of them.
    expect((await t.request('GET', '/v1/a2a/tasks', { token: other.key })).body).toMatchObject({ tasks: [], total: 0 });
    expect((await t.request('GET', `/v1/a2a/tasks/${second.id}`, { token: other.key })).body.error.code).toBe('task_not_found');
  });

  it('refuses bad creates with the spec codes', async () => {
    const agent = await approvalAgent();
    const missing = await t.request('POST', '/v1/a2a/agents/agt_nope/tasks', { token: key, body: { skill_id: 'echo', input: { query: 'q' } } });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('agent_not_found');
    const skill = await t.request('POST', `/v1/a2a/agents/${agent.id}/tasks`, { token: key, body: { skill_id: 'nope', input: { query: 'q' } } });
    expect(skill.status).toBe(400);
    expect(skill.body.error.code).toBe('skill_not_found');
    const invalid = await t.request('POST', `/v1/a2a/agents/${agent.id}/tasks`, { token: key, body: { skill_id: 'echo', input: { query: 5 } } });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe('invalid_input');
    expect(invalid.body.error.details.errors.length).toBeGreaterThan(0);
    for (const body of [
      { input: { query: 'q' } },
      { skill_id: 'echo', input: 'text' },
      { skill_id: 'echo', input: {}, priority: 1.5 },
      { skill_id: 'echo', input: {}, priority: 5000 },
      { skill_id: 'echo', input: {}, extra: 1 },
    ]) {
      const reply = await t.request('POST', `/v1/a2a/agents/${agent.id}/tasks`, { token: key, body });
      expect(reply.status, JSON.stringify(body)).toBe(400);
      expect(reply.body.error.code).toBe('invalid_field');
    }
    const disabled = await approvalAgent();
    expect((await t.request('PUT', `/v1/a2a/agents/${disabled.id}`, { token: key, body: { enabled: false } })).status).toBe(200);
    const refused = await t.request('POST', `/v1/a2a/agents/${disabled.id}/tasks`, { token: key, body: { skill_id: 'echo', input: { query: 'q' } } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('agent_disabled');
    const archived = await approvalAgent();
    expect((await t.request('DELETE', `/v1/pipelines/${archived.pipeline_id}`, { token: key })).status).toBe(204);
    const gone = await t.request('POST', `/v1/a2a/agents/${archived.id}/tasks`, { token: key, body: { skill_id: 'echo', input: { query: 'q' } } });
    expect(gone.status).toBe(409);
    expect(gone.body.error).toMatchObject({ code: 'conflict', message: expect.stringContaining('archived') });
    expect((await t.request('GET', `/v1/a2a/tasks?agent_id=${archived.id}`, { token: key })).body.total).toBe(0);
  });

  it('refuses bad parts naming the part, and unknown tasks with task_not_found', async () => {
    const agent = await approvalAgent();
    const task = await createTask(agent.id);
    const cases: [unknown, string][] = [
      [[], 'body.parts'],
      [[{ type: 'text', text: '' }], 'body.parts[0].text'],
      [[{ type: 'text', text: 'ok' }, { type: 'data' }], 'body.parts[1].data'],
      [[{ type: 'file', name: 'a.bin', mime_type: 'application/octet-stream', data: 'not base64!' }], 'body.parts[0].data'],
      [[{ type: 'file', name: 'a.bin', mime_type: 'nonsense', data: 'aGk=' }], 'body.parts[0].mime_type'],
      [[{ type: 'file', mime_type: 'text/plain', data: 'aGk=' }], 'body.parts[0].name'],
      [[{ type: 'text', text: 'x', url: 'x' }], 'body.parts.0.url'],
      [[{ type: 'video' }], 'body.parts[0].type'],
    ];
    for (const [parts, field] of cases) {
      const reply = await t.request('POST', `/v1/a2a/tasks/${task.id}/messages`, { token: key, body: { parts } });
      expect(reply.status, JSON.stringify(parts)).toBe(400);
      expect(reply.body.error.message + JSON.stringify(reply.body.error.details)).toContain(field);
    }
    for (const [method, path, body] of [
      ['GET', '/v1/a2a/tasks/tsk_nope', undefined],
      ['GET', '/v1/a2a/tasks/tsk_nope/events', undefined],
      ['GET', '/v1/a2a/tasks/tsk_nope/messages', undefined],
      ['POST', '/v1/a2a/tasks/tsk_nope/messages', { parts: [{ type: 'text', text: 'hi' }] }],
      ['POST', '/v1/a2a/tasks/tsk_nope/cancel', { reason: 'x' }],
      ['GET', '/v1/a2a/tasks/tsk_nope/artifacts/art_nope', undefined],
    ] as const) {
      const reply = await t.request(method, path, { token: key, body });
      expect(reply.status, path).toBe(404);
      expect(reply.body.error.code, path).toBe('task_not_found');
    }
    const artifact = await t.request('GET', `/v1/a2a/tasks/${task.id}/artifacts/art_nope`, { token: key });
    expect(artifact.status).toBe(404);
    expect(artifact.body.error.code).toBe('not_found');
    for (const query of ['limit=0', 'limit=101', 'offset=-1', 'status=sleeping']) {
      const reply = await t.request('GET', `/v1/a2a/tasks?${query}`, { token: key });
      expect(reply.status, query).toBe(400);
    }
    const badCancel = await t.request('POST', `/v1/a2a/tasks/${task.id}/cancel`, { token: key, body: { reason: 5 } });
    expect(badCancel.status).toBe(400);
  });

  it("limits task creation to the agent's rate_limit_rpm and reads to 60 per minute per task, with the limit's headers", async () => {
    const agent = await approvalAgent({ rate_limit_rpm: 2 });
    const first = await t.request('POST', `/v1/a2a/agents/${agent.id}/tasks`, { token: key, body: { skill_id: 'echo', input: { query: 'q' } } });
    expect(first.status).toBe(201);
    expect(first.headers.get('x-ratelimit-limit')).toBe('2');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('1');
    await createTask(agent.id);
    const third = await t.request('POST', `/v1/a2a/agents/${agent.id}/tasks`, { token: key, body: { skill_id: 'echo', input: { query: 'q' } } });
    expect(third.status).toBe(429);
    expect(third.body.error.code).toBe('rate_limited');
    expect(third.headers.get('x-ratelimit-limit')).toBe('2');
    expect(third.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(third.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);

    const task = first.body;
    for (let read = 1; read <= 60; read++) {
      const reply = await t.request('GET', `/v1/a2a/tasks/${task.id}`, { token: key });
      expect(reply.status).toBe(200);
      expect(reply.headers.get('x-ratelimit-remaining')).toBe(String(60 - read));
    }
    const over = await t.request('GET', `/v1/a2a/tasks/${task.id}`, { token: key });
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('rate_limited');
    expect(over.headers.get('x-ratelimit-limit')).toBe('60');
    // Another task of the account is read as before.
    expect((await t.request('GET', `/v1/a2a/tasks/${(await createTask((await approvalAgent()).id)).id}`, { token: key })).status).toBe(200);
  });
});

describe.each(BACKENDS)('A2A task priority on %s', (backend) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    // One stage at a time: which waiting stage is claimed first shows.
    t = await startApp(backend, { PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50', PADDOCK_PIPELINE_CONCURRENCY: '1' });
    key = (await t.signup()).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('claims the stages of a higher-priority task first when they wait for a worker', async () => {
    const pipeline = await createPipeline(t.url, key, { stages: [{ name: 'only', type: 'gate', config: { expression: 'true' } }] });
    const agent = await registerAgent(t.url, key, { pipeline_id: pipeline.id });
    const worker = t.services.pipelines.worker;
    await worker.stop();
    const create = async (priority: number) => (await t.request('POST', `/v1/a2a/agents/${agent.id}/tasks`, { token: key, body: { skill_id: 'echo', input: { query: 'q' }, priority } })).body;
    const low = await create(-5);
    const normal = await create(0);
    const high = await create(10);
    expect([low.priority, normal.priority, high.priority]).toEqual([-5, 0, 10]);
    worker.start();
    const ended = async (id: string) =>
      waitFor(`task ${id} to complete`, async () => {
        const task = (await t.request('GET', `/v1/a2a/tasks/${id}`, { token: key })).body;
        if (task.status !== 'completed') throw new Error(task.status);
        return task;
      });
    const [lowDone, normalDone, highDone] = [await ended(low.id), await ended(normal.id), await ended(high.id)];
    // Each started only after the one before it in priority order had completed.
    expect(highDone.completed_at <= normalDone.started_at).toBe(true);
    expect(normalDone.completed_at <= lowDone.started_at).toBe(true);
  });
});
