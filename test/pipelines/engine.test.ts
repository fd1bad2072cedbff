// The run engine with stages that need no sandbox (gates, approvals): parallel branches, GitHub
// Actions skip semantics, on_failure stop/continue, retries with backoff, conditions, gate results,
// approvals with SLA, cancel, an a2a stage against a real agent, and the run timeline; on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createPipeline, startRun, stageOf, timeline, waitForRun } from '../helpers/pipelines.js';
import { startTestAgent } from '../helpers/a2a-agent.js';

const pass = (name: string, extra: Record<string, unknown> = {}) => ({ name, type: 'gate', config: { expression: 'true' }, ...extra });
const fail = (name: string, extra: Record<string, unknown> = {}) => ({ name, type: 'gate', config: { expression: 'false' }, ...extra });
const statuses = (run: any) => Object.fromEntries(run.stages.map((s: any) => [s.name, s.status]));

describe.each(BACKENDS)('run engine on %s', (backend) => {
  let t: TestApp;
  let key: string;
  const run = async (body: Record<string, unknown>, input: Record<string, unknown> = {}) => {
    const pipeline = await createPipeline(t, key, body);
    const started = await startRun(t, key, pipeline.id, input);
    return { pipeline, started };
  };

  beforeAll(async () => {
    // The test agent listens on 127.0.0.1 over http, which the outbound guard refuses by default.
    t = await startApp(backend, { PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50', PADDOCK_ALLOW_PRIVATE_WEBHOOKS: 'true', PADDOCK_ALLOW_HTTP_WEBHOOKS: 'true' });
    key = (await t.signup()).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('runs a diamond DAG to success and records the timeline in order', async () => {
    const { pipeline, started } = await run({ stages: [pass('a'), pass('b', { depends_on: ['a'] }), pass('c', { depends_on: ['a'] }), pass('d', { depends_on: ['b', 'c'] })] });
    expect(started.status).toBe('pending');
    expect(statuses(started)).toEqual({ a: 'pending', b: 'waiting', c: 'waiting', d: 'waiting' });
    const done = await waitForRun(t, key, pipeline.id, started.id);
    expect(done.status).toBe('succeeded');
    expect(statuses(done)).toEqual({ a: 'succeeded', b: 'succeeded', c: 'succeeded', d: 'succeeded' });
    expect(stageOf(done, 'd').gate_result).toMatchObject({ passed: true, failed_checks: [], passed_checks: [{ type: 'expression', expected: 'true', actual: 'true', passed: true }] });
    expect(Date.parse(stageOf(done, 'd').started_at)).toBeGreaterThanOrEqual(Math.max(Date.parse(stageOf(done, 'b').completed_at), Date.parse(stageOf(done, 'c').completed_at)));
    const events = await timeline(t, key, pipeline.id, started.id);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(events[0].type).toBe('pipeline.run.created');
    expect(events[1].type).toBe('pipeline.run.started');
    expect(events.at(-1)!.type).toBe('pipeline.run.completed');
    expect(
      events
        .filter((e) => e.type === 'pipeline.stage.started')
        .map((e) => e.stage)
        .sort(),
    ).toEqual(['a', 'b', 'c', 'd']);
    expect(events.filter((e) => e.type === 'pipeline.stage.completed')).toHaveLength(4);
    const list = await t.request('GET', `/v1/pipelines/${pipeline.id}/runs`, { token: key });
    expect(list.body[0]).toMatchObject({ id: started.id, status: 'succeeded' });
    expect(list.body[0].duration_ms).toBeGreaterThanOrEqual(0);
    expect(list.body[0].started_at).toBeTruthy();
  });

  it('on_failure stop fails the run and cancels what had not run', async () => {
    const { pipeline, started } = await run({ stages: [fail('a'), pass('b', { depends_on: ['a'] }), pass('c', { depends_on: ['b'] })] });
    const done = await waitForRun(t, key, pipeline.id, started.id);
    expect(done.status).toBe('failed');
    expect(done.error).toMatch(/stage a failed: gate failed: expression is false/);
    expect(statuses(done)).toEqual({ a: 'failed', b: 'canceled', c: 'canceled' });
    expect(stageOf(done, 'a').gate_result).toMatchObject({ passed: false, failed_checks: [{ type: 'expression', passed: false, message: 'expression is false' }] });
    expect((await timeline(t, key, pipeline.id, started.id)).map((e) => e.type)).toContain('pipeline.run.failed');
  });

  it('on_failure continue skips dependants (GitHub Actions), runs on_failure handlers and other branches', async () => {
    const { pipeline, started } = await run({
      stages: [
        fail('a', { on_failure: 'continue' }),
        pass('after-a', { depends_on: ['a'] }),
        pass('after-after', { depends_on: ['after-a'] }),
        pass('cleanup', { depends_on: ['a'], condition: { on_failure: true } }),
        pass('other'),
      ],
    });
    const done = await waitForRun(t, key, pipeline.id, started.id);
    expect(statuses(done)).toEqual({ a: 'failed', 'after-a': 'skipped', 'after-after': 'skipped', cleanup: 'succeeded', other: 'succeeded' });
    expect(stageOf(done, 'after-a').error).toBe('dependency a did not succeed');
    expect(done.status).toBe('succeeded');
  });

  it('applies condition.if over the run input and earlier stages', async () => {
    const { pipeline, started } = await run(
      {
        stages: [
          pass('a'),
          pass('main-only', { depends_on: ['a'], condition: { if: 'input.branch == "main" && stages.a.status == "succeeded"' } }),
          pass('dev-only', { condition: { if: 'input.env.DEPLOY == "dev"' } }),
        ],
      },
      { repo: 'https://example.com/x.git', branch: 'main', env: { DEPLOY: 'prod' } },
    );
    const done = await waitForRun(t, key, pipeline.id, started.id);
    expect(statuses(done)).toEqual({ a: 'succeeded', 'main-only': 'succeeded', 'dev-only': 'skipped' });
    expect(stageOf(done, 'dev-only').error).toBe('condition.if is false');
  });

  it('retries with exponential backoff and shows the attempt', async () => {
    const { pipeline, started } = await run({ stages: [fail('flaky', { retry: { max_attempts: 3, backoff: '300ms', max_backoff: '1s' } })] });
    const done = await waitForRun(t, key, pipeline.id, started.id);
    expect(done.status).toBe('failed');
    expect(stageOf(done, 'flaky').attempt).toBe(3);
    const events = await timeline(t, key, pipeline.id, started.id);
    const retries = events.filter((e) => e.type === 'pipeline.stage.retrying');
    expect(retries.map((e) => e.data.retry_in_ms)).toEqual([300, 600]);
    const starts = events.filter((e) => e.type === 'pipeline.stage.started').map((e) => e.data.attempt);
    expect(starts).toEqual([1, 2, 3]);
    const logs = await t.request('GET', `/v1/pipelines/${pipeline.id}/runs/${started.id}/stages/flaky/logs`, { token: key });
    expect(logs.body.attempts.map((a: any) => [a.attempt, a.status])).toEqual([
      [1, 'failed'],
      [2, 'failed'],
      [3, 'failed'],
    ]);
    expect(logs.body.attempts[0].stdout).toMatch(/expression is false/);
    const startedTimes = (await t.storage.db.selectFrom('pipeline_stage_attempts').select('started_at').where('run_stage_id', '=', stageOf(done, 'flaky').id).orderBy('attempt').execute()).map((r) =>
      Date.parse(r.started_at),
    );
    expect(startedTimes[1] - startedTimes[0]).toBeGreaterThanOrEqual(300);
    expect(startedTimes[2] - startedTimes[1]).toBeGreaterThanOrEqual(600);
  });

  it('gate checks trust, cost and state; fail_fast fails the run whatever on_failure says', async () => {
    const { pipeline, started } = await run({
      stages: [
        { name: 'ok', type: 'gate', config: { trust_above: 50, cost_below: 1 } },
        { name: 'strict', type: 'gate', on_failure: 'continue', depends_on: ['ok'], config: { cost_below: 0, state_key: 'approved', fail_fast: true } },
      ],
    });
    const done = await waitForRun(t, key, pipeline.id, started.id);
    expect(stageOf(done, 'ok').gate_result.passed_checks.map((c: any) => [c.type, c.actual])).toEqual([
      ['trust', '100'],
      ['cost', '0.000000'],
    ]);
    const strict = stageOf(done, 'strict').gate_result;
    expect(strict.passed).toBe(false);
    expect(strict.failed_checks.map((c: any) => [c.type, c.message])).toEqual([
      ['cost', 'run cost $0.000000 is not below $0'],
      ['expression', 'state key approved is not set'],
    ]);
    expect(strict.total_cost).toBe(0);
    expect(done.status).toBe('failed');
  });

  it('pauses at an approval, notifies, and resumes on approve (idempotent; 409 when nothing waits)', async () => {
    const { pipeline, started } = await run({
      stages: [
        pass('build'),
        { name: 'ship-it', type: 'await_approval', depends_on: ['build'], config: { message: 'Deploy to prod?', channels: ['dashboard'] } },
        { name: 'check', type: 'gate', depends_on: ['ship-it'], config: { state_key: 'go' } },
      ],
    });
    const base = `/v1/pipelines/${pipeline.id}/runs/${started.id}`;
    const paused = await waitForRun(t, key, pipeline.id, started.id, (r) => r.status === 'paused');
    expect(stageOf(paused, 'ship-it').status).toBe('paused_approval');
    const notifications = await t.request('GET', '/v1/notifications', { token: key });
    const approval = notifications.body.data?.find?.((n: any) => n.type === 'pipeline_approval') ?? notifications.body.find?.((n: any) => n.type === 'pipeline_approval');
    expect(approval?.message, notifications.text).toMatch(/Deploy to prod\?/);
    await t.request('PUT', `${base}/state/go`, { token: key, body: { value: 'true' } });
    const approved = await t.request('POST', `${base}/approve`, { token: key, body: { comment: 'lgtm' } });
    expect(approved.status, approved.text).toBe(200);
    expect(approved.body.stage).toMatchObject({ status: 'succeeded', approval: { decision: 'approve', comment: 'lgtm' } });
    expect(approved.body.stage.approval.decided_by).toMatch(/^api_key:/);
    const again = await t.request('POST', `${base}/approve`, { token: key, body: {} });
    expect(again.status).toBe(200);
    expect(again.body.stage.approval.decided_at).toBe(approved.body.stage.approval.decided_at);
    expect((await t.request('POST', `${base}/reject`, { token: key, body: {} })).status).toBe(409);
    const done = await waitForRun(t, key, pipeline.id, started.id);
    expect(done.status).toBe('succeeded');
    expect(stageOf(done, 'check').gate_result.passed).toBe(true);
    expect((await timeline(t, key, pipeline.id, started.id)).map((e) => e.type)).toEqual(expect.arrayContaining(['pipeline.stage.paused_approval', 'pipeline.stage.approved']));
  });

  it('reject cancels the run and records why', async () => {
    const { pipeline, started } = await run({ stages: [{ name: 'gatekeeper', type: 'await_approval' }, pass('after', { depends_on: ['gatekeeper'] })] });
    await waitForRun(t, key, pipeline.id, started.id, (r) => r.status === 'paused');
    const rejected = await t.request('POST', `/v1/pipelines/${pipeline.id}/runs/${started.id}/reject`, { token: key, body: { comment: 'not today' } });
    expect(rejected.status).toBe(200);
    const done = await getRunNow(pipeline.id, started.id);
    expect(done.status).toBe('canceled');
    expect(done.error).toMatch(/rejected by api_key:.*: not today/);
    expect(statuses(done)).toEqual({ gatekeeper: 'canceled', after: 'canceled' });
  });

  it('applies auto_decision when the SLA expires, as its own event', async () => {
    const { pipeline, started } = await run({ stages: [{ name: 'wait', type: 'await_approval', config: { sla_timeout: '1s', auto_decision: 'approve' } }, pass('after', { depends_on: ['wait'] })] });
    const done = await waitForRun(t, key, pipeline.id, started.id, undefined, 15_000);
    expect(done.status).toBe('succeeded');
    expect(stageOf(done, 'wait').approval).toMatchObject({ decision: 'approve', decided_by: 'sla_timeout' });
    expect((await timeline(t, key, pipeline.id, started.id)).map((e) => e.type)).toContain('pipeline.stage.approval_auto_decided');
  });

  it('cancels a paused run (204), then answers 409', async () => {
    const { pipeline, started } = await run({ stages: [{ name: 'hold', type: 'await_approval' }, pass('after', { depends_on: ['hold'] })] });
    await waitForRun(t, key, pipeline.id, started.id, (r) => r.status === 'paused');
    expect((await t.request('POST', `/v1/pipelines/${pipeline.id}/runs/${started.id}/cancel`, { token: key })).status).toBe(204);
    const done = await getRunNow(pipeline.id, started.id);
    expect(done.status).toBe('canceled');
    expect(statuses(done)).toEqual({ hold: 'canceled', after: 'canceled' });
    expect((await t.request('POST', `/v1/pipelines/${pipeline.id}/runs/${started.id}/cancel`, { token: key })).status).toBe(409);
  });

  it('runs an a2a stage through the engine: delegates to a real agent, its output lands in the run state', async () => {
    const agent = await startTestAgent({ streaming: true });
    try {
      const { pipeline, started } = await run({
        stages: [
          { name: 'review', type: 'a2a', config: { agent_url: agent.url, skill_id: 'echo', prompt: 'summarise the diff', max_cost_usd: 0.05 } },
          { name: 'check', type: 'gate', depends_on: ['review'], config: { expression: 'state.review_output.state == "completed"', cost_below: 1 } },
        ],
      });
      const done = await waitForRun(t, key, pipeline.id, started.id);
      expect(statuses(done)).toEqual({ review: 'succeeded', check: 'succeeded' });
      expect(done.status).toBe('succeeded');
      expect(agent.received.at(-1)!.metadata).toMatchObject({ skill_id: 'echo', paddock_stage: 'review', paddock_run_id: started.id });
      const entry = await t.request('GET', `/v1/pipelines/${pipeline.id}/runs/${started.id}/state/review_output`, { token: key });
      expect(entry.status).toBe(200);
      expect(entry.body).toMatchObject({ type: 'json', created_by: 'review' });
      expect(JSON.parse(entry.body.value)).toMatchObject({ state: 'completed', text: 'echo: summarise the diff', cost_usd: 0.01 });
    } finally {
      await agent.close();
    }
  });

  async function getRunNow(pipelineId: string, runId: string) {
    return (await t.request('GET', `/v1/pipelines/${pipelineId}/runs/${runId}`, { token: key })).body;
  }
});
