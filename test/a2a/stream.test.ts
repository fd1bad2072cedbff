// The task stream (GET /v1/a2a/tasks/{id}/stream) through real HTTP on every backend: a task's log as
// server-sent events while its run waits for input and goes on, replayed for an ended task, resumed
// with Last-Event-ID (or ?last_event_id) after a disconnect and after a server restart without losing
// or repeating an event, heartbeats, one connection per task (409 until the first one closes), events
// committed by another server process on the same database, and every refusal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createPipeline, ECHO_SKILL, registerAgent } from '../helpers/a2a.js';
import { openSse, type SseFrame, type SseStream } from '../helpers/sse.js';
import { waitFor } from '../helpers/wait-for.js';

const HEARTBEAT_MS = 300;
const FAST = { PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50', PADDOCK_A2A_STREAM_HEARTBEAT_MS: String(HEARTBEAT_MS) };
const ASK = { name: 'ask', type: 'await_approval', config: { message: 'Which colour?', channels: ['dashboard'] } };
const AFTER = { name: 'after', type: 'gate', config: { expression: 'true' }, depends_on: ['ask'] };

const kinds = (frames: SseFrame[]) => frames.map((frame) => frame.event);
const ids = (frames: SseFrame[]) => frames.map((frame) => Number(frame.id));

describe.each(BACKENDS)('task stream on %s', (backend) => {
  let t: TestApp;
  let key: string;
  const open: SseStream[] = [];

  beforeAll(async () => {
    t = await startApp(backend, FAST);
    key = (await t.signup()).key;
  });
  afterAll(async () => {
    for (const stream of open) stream.close();
    await t?.close();
  });

  async function stream(app: TestApp, taskId: string, options: { token?: string; headers?: Record<string, string>; query?: string } = {}) {
    const opened = await openSse(`${app.url}/v1/a2a/tasks/${taskId}/stream${options.query ?? ''}`, { token: options.token ?? key, headers: options.headers });
    open.push(opened);
    return opened;
  }

  /** A task whose run waits for an answer (await_approval), then passes a gate. */
  async function waitingTask(app: TestApp = t, token = key) {
    const pipeline = await createPipeline(app.url, token, { stages: [ASK, AFTER] });
    const agent = await registerAgent(app.url, token, { pipeline_id: pipeline.id, rate_limit_rpm: 10_000 });
    const created = await app.request('POST', `/v1/a2a/agents/${agent.id}/tasks`, { token, body: { skill_id: ECHO_SKILL.id, input: { query: 'hi' } } });
    expect(created.status, created.text).toBe(201);
    return created.body as { id: string; status: string };
  }

  const answer = async (app: TestApp, taskId: string) => {
    const reply = await app.request('POST', `/v1/a2a/tasks/${taskId}/messages`, { token: key, body: { parts: [{ type: 'text', text: 'blue' }] } });
    expect(reply.status, reply.text).toBe(201);
  };

  it('streams the log while the task waits for input and goes on, then ends after `complete`', async () => {
    const task = await waitingTask();
    const live = await stream(t, task.id);
    expect(live.status).toBe(200);
    expect(live.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(live.headers.get('cache-control')).toContain('no-cache');
    const asking = await live.waitFor((frame) => frame.event === 'status' && frame.data.status === 'input_needed');
    expect(asking.data).toEqual({ status: 'input_needed', message: 'Which colour?' });
    expect(live.isEnded()).toBe(false);
    await live.waitFor((frame) => frame.event === 'message' && frame.data.role === 'agent');

    await answer(t, task.id);
    const complete = await live.waitFor((frame) => frame.event === 'complete');
    expect(complete.data).toMatchObject({ status: 'completed' });
    expect(complete.data).toHaveProperty('output');
    await live.ended;
    expect(live.frames.at(-1)!.event).toBe('complete');
    expect(ids(live.frames)).toEqual(live.frames.map((_, index) => index + 1));
    expect(live.frames[0]).toMatchObject({ event: 'status', data: { status: 'pending', message: null } });
    expect(kinds(live.frames)).toEqual(expect.arrayContaining(['status', 'progress', 'message', 'complete']));
    const statuses = live.frames.filter((frame) => frame.event === 'status').map((frame) => frame.data.status);
    expect(statuses).toEqual(['pending', 'running', 'input_needed', 'running', 'completed']);
    for (const frame of live.frames) {
      if (frame.event === 'status') expect(Object.keys(frame.data).sort()).toEqual(['message', 'status']);
      if (frame.event === 'progress') expect(Object.keys(frame.data).sort()).toEqual(['current_step', 'message', 'percentage']);
      if (frame.event === 'message') expect(Object.keys(frame.data).sort()).toEqual(['parts', 'role']);
    }
    expect(live.frames.filter((frame) => frame.event === 'message').map((frame) => frame.data)).toEqual([
      { role: 'agent', parts: [{ type: 'text', text: 'Which colour?' }] },
      { role: 'user', parts: [{ type: 'text', text: 'blue' }] },
    ]);

    // An ended task: the same log replayed, then the end.
    const replay = await stream(t, task.id);
    await replay.ended;
    expect(replay.frames.map(({ id, event, data }) => ({ id, event, data }))).toEqual(live.frames.map(({ id, event, data }) => ({ id, event, data })));
  });

  it('resumes after Last-Event-ID (or ?last_event_id) without losing or repeating an event; the header wins', async () => {
    const task = await waitingTask();
    const first = await stream(t, task.id);
    await first.waitFor((frame) => frame.event === 'message');
    first.close();
    await first.ended;
    const seen = first.frames.slice(0, 2);
    await answer(t, task.id);
    await waitFor('the task to complete', async () => ((await t.request('GET', `/v1/a2a/tasks/${task.id}`, { token: key })).body.status === 'completed' ? true : null));

    const whole = await stream(t, task.id);
    await whole.ended;
    const byHeader = await stream(t, task.id, { headers: { 'last-event-id': seen.at(-1)!.id! } });
    await byHeader.ended;
    expect(ids(byHeader.frames)).toEqual(ids(whole.frames).slice(2));
    expect([...seen, ...byHeader.frames].map((f) => [f.id, f.event, f.data])).toEqual(whole.frames.map((f) => [f.id, f.event, f.data]));

    const byQuery = await stream(t, task.id, { query: '?last_event_id=3' });
    await byQuery.ended;
    expect(ids(byQuery.frames)).toEqual(ids(whole.frames).slice(3));
    const both = await stream(t, task.id, { query: '?last_event_id=1', headers: { 'last-event-id': '4' } });
    await both.ended;
    expect(ids(both.frames)).toEqual(ids(whole.frames).slice(4));
    const pastTheEnd = await stream(t, task.id, { headers: { 'last-event-id': String(whole.frames.length) } });
    await pastTheEnd.ended;
    expect(pastTheEnd.status).toBe(200);
    expect(pastTheEnd.frames).toEqual([]);
  });

  it('sends a heartbeat comment every PADDOCK_A2A_STREAM_HEARTBEAT_MS while nothing happens', async () => {
    const task = await waitingTask();
    const live = await stream(t, task.id);
    await live.waitFor((frame) => frame.event === 'message');
    await new Promise((resolve) => setTimeout(resolve, HEARTBEAT_MS * 3.5));
    expect(live.comments.filter((comment) => comment === 'heartbeat').length).toBeGreaterThanOrEqual(2);
    expect(live.isEnded()).toBe(false);
    live.close();
  });

  it('holds one connection per task: a second is a 409 stream_already_open until the first disconnects', async () => {
    const task = await waitingTask();
    const first = await stream(t, task.id);
    await first.waitFor((frame) => frame.event === 'message');
    const second = await stream(t, task.id);
    expect(second.status).toBe(409);
    expect(second.body).toEqual({ error: { code: 'stream_already_open', message: expect.stringContaining('one connection per task'), details: {} } });
    // Another task is not affected.
    const other = await waitingTask();
    const otherStream = await stream(t, other.id);
    expect(otherStream.status).toBe(200);
    otherStream.close();

    first.close();
    const third = await waitFor('the slot to free once the client hung up', async () => {
      const attempt = await stream(t, task.id);
      return attempt.status === 200 ? attempt : null;
    });
    await third.waitFor((frame) => frame.event === 'message');
    third.close();
    // Closing the client released the slot each time: nothing stays open on the server.
    await waitFor('every slot released', async () => (t.services.a2a.streamSlots.size === 0 ? true : null));
  });

  it('delivers events committed by another server process on the same database (the timer re-read)', async () => {
    const other = await startApp(backend, FAST, { reuse: { dataDir: t.dataDir, databaseUrl: t.databaseUrl } });
    try {
      const task = await waitingTask();
      const live = await stream(t, task.id);
      await live.waitFor((frame) => frame.event === 'message');
      await answer(other, task.id);
      await live.waitFor((frame) => frame.event === 'complete', 20_000);
      await live.ended;
    } finally {
      await other.close({ keepData: true });
    }
  });

  it("refuses: 406 for an Accept without text/event-stream, 400 for a bad resume point or query, 404 for an unknown or another account's task, 401 and 403", async () => {
    const task = await waitingTask();
    const refusals: [Record<string, unknown>, number, string, string?][] = [
      [{ headers: { accept: 'application/json' } }, 406, 'not_acceptable'],
      [{ headers: { accept: 'text/event-stream;q=0, application/json' } }, 406, 'not_acceptable'],
      [{ headers: { 'last-event-id': 'abc' } }, 400, 'invalid_field', 'header.last-event-id'],
      [{ headers: { 'last-event-id': '-1' } }, 400, 'invalid_field', 'header.last-event-id'],
      [{ query: '?last_event_id=1.5' }, 400, 'invalid_field', 'query.last_event_id'],
      [{ query: '?since=3' }, 400, 'invalid_field', 'query.since'],
    ];
    for (const [options, status, code, field] of refusals) {
      const reply = await stream(t, task.id, options);
      expect(reply.status, JSON.stringify(options)).toBe(status);
      expect(reply.body.error.code, JSON.stringify(reply.body)).toBe(code);
      if (field) expect(reply.body.error.message).toContain(field);
    }
    const unknown = await stream(t, 'tsk_nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('task_not_found');
    const stranger = (await t.signup()).key;
    const foreign = await stream(t, task.id, { token: stranger });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('task_not_found');
    const anonymous = await openSse(`${t.url}/v1/a2a/tasks/${task.id}/stream`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.body.error.code).toBe('unauthorized');
    const narrow = (await t.request('POST', '/v1/account/keys', { token: key, body: { name: 'read', scope: 'read' } })).body.key;
    const readOnly = await stream(t, task.id, { token: narrow });
    expect(readOnly.status).toBe(403);
    expect(readOnly.body.error.code).toBe('scope_denied');
    // None of the refusals took the task's slot.
    const fine = await stream(t, task.id);
    expect(fine.status).toBe(200);
    fine.close();
  });
});

describe.each(BACKENDS)('task stream across a server restart on %s', (backend) => {
  it('ends open streams when the server stops, and a reconnect with Last-Event-ID gets the rest, none lost or repeated', async () => {
    let t = await startApp(backend, FAST);
    const { key } = await t.signup();
    try {
      const pipeline = await createPipeline(t.url, key, { stages: [ASK, AFTER] });
      const agent = await registerAgent(t.url, key, { pipeline_id: pipeline.id });
      const task = (await t.request('POST', `/v1/a2a/agents/${agent.id}/tasks`, { token: key, body: { skill_id: ECHO_SKILL.id, input: { query: 'hi' } } })).body;
      const before = await openSse(`${t.url}/v1/a2a/tasks/${task.id}/stream`, { token: key });
      await before.waitFor((frame) => frame.event === 'message');
      const closing = t.close({ keepData: true });
      await before.ended;
      await closing;
      expect(before.frames.at(-1)!.event).toBe('message');

      t = await startApp(backend, FAST, { reuse: { dataDir: t.dataDir, databaseUrl: t.databaseUrl } });
      const answered = await t.request('POST', `/v1/a2a/tasks/${task.id}/messages`, { token: key, body: { parts: [{ type: 'text', text: 'blue' }] } });
      expect(answered.status, answered.text).toBe(201);
      const after = await openSse(`${t.url}/v1/a2a/tasks/${task.id}/stream`, { token: key, headers: { 'last-event-id': before.frames.at(-1)!.id! } });
      await after.ended;
      expect(after.frames.at(-1)!.event).toBe('complete');
      const whole = await openSse(`${t.url}/v1/a2a/tasks/${task.id}/stream`, { token: key });
      await whole.ended;
      expect([...before.frames, ...after.frames].map((f) => [f.id, f.event, f.data])).toEqual(whole.frames.map((f) => [f.id, f.event, f.data]));
    } finally {
      await t.close();
    }
  });
});
