// Command stages on real sandboxes, with both drivers: a fresh sandbox per attempt destroyed after,
// env layering, exit codes and logs, parallel branches, per-stage timeout, and cancel killing a
// running stage; and an eval stage running its scenario through the engine.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../../helpers/app.js';
import { createPipeline, startRun, stageOf, waitForRun } from '../../helpers/pipelines.js';
import { waitFor } from '../../helpers/wait-for.js';

const RUNTIMES = ['runc', 'gvisor'] as const;
const command = (name: string, cmd: string, extra: Record<string, unknown> = {}) => ({ name, type: 'command', command: cmd, template: 'python-311', ...extra });

describe.each(RUNTIMES)('command stages with %s', (runtime) => {
  let t: TestApp;
  let key: string;

  const sandboxesOf = async (runId: string) => {
    const rows = await t.storage.db
      .selectFrom('pipeline_run_sandboxes as p')
      .innerJoin('sandboxes as s', 's.id', 'p.sandbox_id')
      .select(['s.id', 's.status', 'p.run_stage_id'])
      .where('p.run_id', '=', runId)
      .execute();
    return rows;
  };
  /** Stage sandboxes are destroyed right after the outcome is recorded, off the critical path. */
  const destroyedSoon = (runId: string) =>
    waitFor(
      `every sandbox of run ${runId} to be destroyed`,
      async () => {
        const rows = await sandboxesOf(runId);
        if (rows.some((s) => s.status !== 'destroyed')) throw new Error(`their statuses are ${rows.map((s) => s.status).join(', ')}`);
        return rows;
      },
      20_000,
      200,
    );
  const logs = async (pipelineId: string, runId: string, stage: string) => (await t.request('GET', `/v1/pipelines/${pipelineId}/runs/${runId}/stages/${stage}/logs`, { token: key })).body;

  beforeAll(async () => {
    t = await startApp('sqlite', { PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50' }, { runtime });
    key = (await t.signupOnPlan('enterprise')).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('runs each stage in its own sandbox with run env overridden by stage env, records exit codes and logs, destroys the sandboxes', async () => {
    const pipeline = await createPipeline(t, key, {
      stages: [command('hello', 'echo "$GREETING from $WHO"; echo oops >&2; pwd', { env: { WHO: 'stage' } }), command('fails', 'exit 3', { depends_on: ['hello'], on_failure: 'continue' })],
    });
    const run = await startRun(t, key, pipeline.id, { env: { GREETING: 'hi', WHO: 'run' } });
    const done = await waitForRun(t, key, pipeline.id, run.id);
    expect(stageOf(done, 'hello')).toMatchObject({ status: 'succeeded', exit_code: 0, attempt: 1 });
    expect(stageOf(done, 'fails')).toMatchObject({ status: 'failed', exit_code: 3, error: 'command exited with 3' });
    const hello = await logs(pipeline.id, run.id, 'hello');
    expect(hello.attempts[0]).toMatchObject({ attempt: 1, status: 'succeeded', exit_code: 0, stdout: 'hi from stage\n/workspace\n', stderr: 'oops\n' });
    const sandboxes = await destroyedSoon(run.id);
    expect(sandboxes).toHaveLength(2);
    expect(new Set(sandboxes.map((s) => s.id)).size).toBe(2);
    expect(sandboxes.every((s) => s.status === 'destroyed')).toBe(true);
  });

  it('runs an eval stage through the engine: the scenario in its own sandbox, gate_result, result in state', async () => {
    const scenario = await t.request('POST', '/v1/evals/scenarios', {
      token: key,
      body: {
        name: `answer-${runtime}`,
        template: 'minimal',
        command: 'echo $((6*7))',
        checks: [
          { type: 'exit_code', equals: 0 },
          { type: 'output_contains', value: '42' },
        ],
      },
    });
    expect(scenario.status, scenario.text).toBe(201);
    const pipeline = await createPipeline(t, key, {
      stages: [{ name: 'quality', type: 'eval', config: { scenario_name: `answer-${runtime}`, min_pass_rate: 1, store_result_in_state: true } }],
    });
    const run = await startRun(t, key, pipeline.id);
    const done = await waitForRun(t, key, pipeline.id, run.id);
    expect(done.status).toBe('succeeded');
    expect(stageOf(done, 'quality').gate_result).toMatchObject({ passed: true, score: 1, failed_checks: [] });
    // The scenario's sandbox is metered: its compute is the eval's cost.
    expect(stageOf(done, 'quality').gate_result.total_cost).toBeGreaterThan(0);
    const stored = await t.request('GET', `/v1/pipelines/${pipeline.id}/runs/${run.id}/state/eval_result`, { token: key });
    expect(stored.status).toBe(200);
    expect(JSON.parse(stored.body.value)).toMatchObject({ pass_rate: 1, score: 1 });
  });

  it('lets a command read and write its own run state through the state gateway, and nothing else', async () => {
    // A request to the gateway stalled once in CI (not reproduced since): bounded attempts turn a stall
    // into a retry, and a gateway that never answers still fails the stage.
    const curl = 'curl --max-time 10 --retry 3 --retry-all-errors';
    const put = `${curl} -sf -X PUT -H "authorization: Bearer $PADDOCK_STATE_TOKEN" -H 'content-type: application/json' -d '{"value":{"version":"1.2.3"}}' "$PADDOCK_STATE_URL/build-info"`;
    const get = `${curl} -sf -H "authorization: Bearer $PADDOCK_STATE_TOKEN" "$PADDOCK_STATE_URL/build-info"`;
    const forged = `${curl} -s -w '\\nforged:%{http_code}' -H "authorization: Bearer pst_x.y" "$PADDOCK_STATE_URL"`;
    const pipeline = await createPipeline(t, key, {
      stages: [
        { name: 'writer', type: 'command', command: put, template: 'minimal' },
        { name: 'reader', type: 'command', command: `${get}; echo; ${forged}`, template: 'minimal', depends_on: ['writer'] },
        { name: 'check', type: 'gate', depends_on: ['reader'], config: { expression: 'state["build-info"].version == "1.2.3"' } },
      ],
    });
    const run = await startRun(t, key, pipeline.id);
    const other = await startRun(t, key, pipeline.id);
    const done = await waitForRun(t, key, pipeline.id, run.id);
    const why = async () => JSON.stringify({ stages: done.stages, reader: await logs(pipeline.id, run.id, 'reader') });
    expect(done.status, await why()).toBe('succeeded');
    const entry = (await t.request('GET', `/v1/pipelines/${pipeline.id}/runs/${run.id}/state/build-info`, { token: key })).body;
    expect(entry).toMatchObject({ value: '{"version":"1.2.3"}', type: 'json', created_by: 'writer' });
    const reader = (await logs(pipeline.id, run.id, 'reader')).attempts[0].stdout;
    expect(JSON.parse(reader.split('\n')[0])).toMatchObject({ key: 'build-info', created_by: 'writer' });
    expect(reader).toContain('"code":"unauthorized"}\nforged:401');
    await waitForRun(t, key, pipeline.id, other.id);
    const otherState = (await t.request('GET', `/v1/pipelines/${pipeline.id}/runs/${other.id}/state`, { token: key })).body;
    expect(otherState.map((e: any) => e.key)).toEqual(['build-info']);
  });

  it('runs stages with no path between them in parallel', async () => {
    const pipeline = await createPipeline(t, key, { stages: [command('a', 'sleep 2'), command('b', 'sleep 2'), command('c', 'sleep 2'), command('after', 'true', { depends_on: ['a', 'b', 'c'] })] });
    const run = await startRun(t, key, pipeline.id);
    const done = await waitForRun(t, key, pipeline.id, run.id);
    expect(done.status).toBe('succeeded');
    const spans = ['a', 'b', 'c'].map((name) => [Date.parse(stageOf(done, name).started_at), Date.parse(stageOf(done, name).completed_at)]);
    const latestStart = Math.max(...spans.map(([start]) => start));
    const earliestEnd = Math.min(...spans.map(([, end]) => end));
    expect(latestStart).toBeLessThan(earliestEnd);
    expect(Date.parse(stageOf(done, 'after').started_at)).toBeGreaterThanOrEqual(Math.max(...spans.map(([, end]) => end)));
  });

  it("waits for a sandbox slot when parallel stages exceed the plan's concurrent sandboxes", async () => {
    const free = (await t.signup()).key;
    const create = await t.request('POST', '/v1/pipelines', { token: free, body: { name: 'wide-on-free', stages: ['a', 'b', 'c'].map((name) => command(name, 'sleep 1')) } });
    const run = await t.request('POST', `/v1/pipelines/${create.body.id}/runs`, { token: free, body: {} });
    const current = await waitForRun(t, free, create.body.id, run.body.id);
    expect(current.status, JSON.stringify(current.stages)).toBe('succeeded');
    const waited = await Promise.all(
      ['a', 'b', 'c'].map(async (name) => (await t.request('GET', `/v1/pipelines/${create.body.id}/runs/${run.body.id}/stages/${name}/logs`, { token: free })).body.attempts[0].stderr),
    );
    expect(waited.filter((stderr) => stderr.includes('waiting for a sandbox slot')).length).toBeGreaterThanOrEqual(1);
  });

  it('kills an attempt at its timeout and destroys its sandbox', async () => {
    const pipeline = await createPipeline(t, key, { stages: [command('slow', 'sleep 60', { timeout: '2s' })] });
    const run = await startRun(t, key, pipeline.id);
    const started = Date.now();
    const done = await waitForRun(t, key, pipeline.id, run.id);
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(stageOf(done, 'slow')).toMatchObject({ status: 'failed', error: 'timed out after 2s' });
    expect((await destroyedSoon(run.id)).map((s) => s.status)).toEqual(['destroyed']);
  });

  it('cancel kills running stages, destroys their sandboxes and marks stages canceled', async () => {
    const pipeline = await createPipeline(t, key, { stages: [command('long', 'sleep 120'), command('next', 'true', { depends_on: ['long'] })] });
    const run = await startRun(t, key, pipeline.id);
    await waitForRun(t, key, pipeline.id, run.id, (r) => stageOf(r, 'long').status === 'running');
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect((await t.request('POST', `/v1/pipelines/${pipeline.id}/runs/${run.id}/cancel`, { token: key })).status).toBe(204);
    const done = await waitForRun(t, key, pipeline.id, run.id);
    expect(done.status).toBe('canceled');
    expect(stageOf(done, 'long').status).toBe('canceled');
    expect(stageOf(done, 'next').status).toBe('canceled');
    expect((await destroyedSoon(run.id)).map((s) => s.status)).toEqual(['destroyed']);
    const attempt = (await logs(pipeline.id, run.id, 'long')).attempts[0];
    expect(attempt.status).toBe('canceled');
  });

  it("counts an agent session on a stage sandbox in the run's sessions, its cost gate and its session's compute", async () => {
    const pipeline = await createPipeline(t, key, {
      stages: [
        command('work', 'echo working'),
        { name: 'hold', type: 'await_approval', depends_on: ['work'] },
        { name: 'budget', type: 'gate', depends_on: ['hold'], config: { cost_below: 0.5, trust_above: 50 } },
      ],
    });
    const run = await startRun(t, key, pipeline.id);
    await waitForRun(t, key, pipeline.id, run.id, (r) => r.status === 'paused');
    const [sandbox] = await sandboxesOf(run.id);
    const agentSession = `agent-${runtime}`;
    const events = [
      { session_id: agentSession, sandbox_id: sandbox.id, type: 'llm_call', timestamp: new Date().toISOString(), payload: { model: 'gpt-4o', tokens_in: 100, tokens_out: 10, cost_usd: 0.6 } },
      { session_id: agentSession, sandbox_id: sandbox.id, type: 'command', timestamp: new Date().toISOString(), payload: { command: 'sudo rm -rf /etc', exit_code: 0 } },
    ];
    const reply = await t.request('POST', '/v1/events/ingest', { token: key, body: { events } });
    expect(reply.body, reply.text).toMatchObject({ accepted: 2, errors: 0 });
    const sessions = (await t.request('GET', `/v1/sessions?pipeline_run_id=${run.id}`, { token: key })).body;
    expect(sessions.map((s: any) => s.id).sort()).toEqual([agentSession, run.session_id].sort());
    const runSession = sessions.find((s: any) => s.id === run.session_id);
    // The run's session is charged the metered compute of the stage's sandbox.
    expect(runSession).toMatchObject({ pipeline_run_id: run.id, sandbox_id: null, llm_cost_usd: 0 });
    expect(runSession.compute_cost_usd).toBeGreaterThan(0);
    expect((await t.request('POST', `/v1/pipelines/${pipeline.id}/runs/${run.id}/approve`, { token: key, body: {} })).status).toBe(200);
    const done = await waitForRun(t, key, pipeline.id, run.id);
    const result = stageOf(done, 'budget').gate_result;
    expect(result.failed_checks.map((c: any) => c.type)).toEqual(['trust', 'cost']);
    // 100 - destructive_delete (40) - privilege_change (15).
    expect(result.failed_checks[0]).toMatchObject({ actual: '45', message: 'trust score 45 is below 50 (lowest of 2 session(s))' });
    expect(result.total_cost).toBeGreaterThan(0.6);
    expect(result.total_cost).toBeLessThan(0.61);
  });
});
