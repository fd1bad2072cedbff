// What delegated work costs, on every backend, without a runtime: a task's cost is its run's (here the
// LLM cost an agent reports against the run's session), shown in the session with its trust; the
// agent's max_cost_per_task stops a task that reaches it (failed, budget_exceeded) and refuses a create
// (402) while the account's unfinished tasks of the agent together already cost that much.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createPipeline, registerAgent } from '../helpers/a2a.js';
import { waitFor } from '../helpers/wait-for.js';

const HOLD = [
  { name: 'hold', type: 'await_approval', config: { message: 'go on?' } },
  { name: 'after', type: 'gate', depends_on: ['hold'], config: { expression: 'true' } },
];

describe.each(BACKENDS)('A2A task costs on %s', (backend) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startApp(backend, { PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50', PADDOCK_A2A_BUDGET_INTERVAL_MS: '100' });
    key = (await t.signup()).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  const agentOver = async (overrides: Record<string, unknown> = {}) => registerAgent(t.url, key, { pipeline_id: (await createPipeline(t.url, key, { stages: HOLD })).id, ...overrides });
  const create = (agentId: string) => t.request('POST', `/v1/a2a/agents/${agentId}/tasks`, { token: key, body: { skill_id: 'echo', input: { query: 'q' } } });
  const read = async (taskId: string) => (await t.request('GET', `/v1/a2a/tasks/${taskId}`, { token: key })).body;
  const until = (what: string, taskId: string, holds: (task: any) => boolean) =>
    waitFor(what, async () => {
      const task = await read(taskId);
      if (!holds(task)) throw new Error(JSON.stringify(task));
      return task;
    });
  const reportLlm = async (task: any, costUsd: number, extra: unknown[] = []) => {
    const reply = await t.request('POST', '/v1/events/ingest', {
      token: key,
      body: {
        events: [
          {
            session_id: task.session_id,
            pipeline_run_id: task.run_id,
            type: 'llm_call',
            timestamp: new Date().toISOString(),
            payload: { model: 'gpt-4o', provider: 'openai', tokens_in: 100, tokens_out: 10, cost_usd: costUsd },
          },
          ...extra,
        ],
      },
    });
    expect(reply.body, reply.text).toMatchObject({ errors: 0 });
  };

  it("shows delegated work in the run's session: the task's cost is the session's, and its trust is there", async () => {
    const agent = await agentOver();
    const task = (await create(agent.id)).body;
    await until('the task to need input', task.id, (current) => current.status === 'input_needed');
    await reportLlm(task, 0.25, [{ session_id: task.session_id, pipeline_run_id: task.run_id, type: 'command', timestamp: new Date().toISOString(), payload: { command: 'rm -rf /', exit_code: 0 } }]);
    const answered = await t.request('POST', `/v1/a2a/tasks/${task.id}/messages`, { token: key, body: { parts: [{ type: 'text', text: 'yes' }] } });
    expect(answered.status).toBe(201);
    const done = await until('the task to complete with its cost', task.id, (current) => current.status === 'completed' && current.cost_usd === 0.25);
    expect(done.session_id).toBe(task.session_id);
    const session = await t.request('GET', `/v1/sessions/${task.session_id}`, { token: key });
    expect(session.status).toBe(200);
    expect(session.body.llm_cost_usd).toBe(0.25);
    expect(session.body.trust_score).toBeLessThan(100);
    const replay = (await t.request('GET', `/v1/sessions/${task.session_id}/replay?limit=1000`, { token: key })).body.events;
    const kinds = replay.map((event: any) => (event.type === 'lifecycle' ? event.data.event : event.type));
    expect(kinds).toContain('llm_call');
    expect(kinds.at(-1)).toBe('pipeline.run.completed');
    expect(replay.find((event: any) => event.data.event === 'pipeline.stage.approved').data).toMatchObject({ by: `a2a_task:${task.id}`, comment: 'yes' });
  });

  it('stops a task whose cost reaches max_cost_per_task (failed, budget_exceeded) and refuses creates the unfinished tasks already use up (402)', async () => {
    const agent = await agentOver({ max_cost_per_task: 1 });
    const first = (await create(agent.id)).body;
    const second = (await create(agent.id)).body;
    await until('the first task to need input', first.id, (current) => current.status === 'input_needed');
    await until('the second task to need input', second.id, (current) => current.status === 'input_needed');
    await reportLlm(first, 0.6);
    await reportLlm(second, 0.5);
    await until('the first cost to be seen', first.id, (current) => current.cost_usd === 0.6);
    await until('the second cost to be seen', second.id, (current) => current.cost_usd === 0.5);
    expect((await read(first.id)).status).toBe('input_needed');

    // 0.6 + 0.5 of unfinished work already reach the agent's 1 USD: no new task fits.
    const refused = await create(agent.id);
    expect(refused.status, refused.text).toBe(402);
    expect(refused.body.error).toMatchObject({ code: 'budget_exceeded', details: { max_cost_per_task: 1, unfinished_cost_usd: 1.1 } });

    await reportLlm(first, 0.5);
    const stopped = await until('the first task to be stopped by its budget', first.id, (current) => current.status === 'failed');
    expect(stopped.status_message).toMatch(/^budget_exceeded/);
    expect(stopped.cost_usd).toBeCloseTo(1.1, 6);
    const events = (await t.request('GET', `/v1/a2a/tasks/${first.id}/events?limit=1000`, { token: key })).body.events;
    expect(events.slice(-2).map((event: any) => [event.kind, event.data.status])).toEqual([
      ['status', 'failed'],
      ['error', 'failed'],
    ]);
    expect(events.at(-1).data.error).toBe('budget_exceeded');
    const run = await t.request('GET', `/v1/pipelines/${agent.pipeline_id}/runs/${first.run_id}`, { token: key });
    expect(run.body.status).toBe('canceled');
    expect(run.body.error).toMatch(/^budget_exceeded/);

    // Only the second (0.5) is unfinished now: a new task fits again.
    expect((await create(agent.id)).status).toBe(201);
    expect((await read(second.id)).status).toBe('input_needed');
  });
});
