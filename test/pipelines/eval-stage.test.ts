// The eval stage executor, called as the run engine would, running scenarios and suites in real
// sandboxes of a started app: pass rate, score, cost, the baseline and regression, the limits as
// gate checks, the result in state, a missing scenario, stopping through the signal. Also the
// run endpoints outside a pipeline. Both drivers, SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEvalStage } from '../../src/pipelines/stages/eval.js';
import type { StageExecutor } from '../../src/pipelines/stages/contract.js';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { stageContext } from '../helpers/stage-context.js';
import { createPipeline, stageOf, startRun, waitForRun } from '../helpers/pipelines.js';

const RUNTIMES = ['runc', 'gvisor'] as const;
const COMBOS = RUNTIMES.flatMap((runtime) => BACKENDS.map((backend) => [runtime, backend] as const));
/** A command marked with this reports an LLM call of 0.3 USD to its sandbox's session, as an agent would. */
const LLM_MARK = 'llm-call';

describe.each(COMBOS)('eval stage on %s with %s', (runtime, backend) => {
  let t: TestApp;
  let key: string;
  let accountId: string;
  let stage: StageExecutor;

  const post = (path: string, body?: unknown) => t.request('POST', path, { token: key, body });
  const scenario = async (name: string, command: string, checks: unknown[], extra: Record<string, unknown> = {}) => {
    const reply = await post('/v1/evals/scenarios', { name, template: 'minimal', command, checks, ...extra });
    expect(reply.status).toBe(201);
    return reply.body;
  };
  const liveSandboxes = async () => (await t.storage.db.selectFrom('sandboxes').select('id').where('account_id', '=', accountId).where('status', '!=', 'destroyed').execute()).length;

  beforeAll(async () => {
    // Compute is free here so costs are exactly the LLM spend the tests record; the pipeline engine's eval
    // test runs at the default rates and sees compute in the cost.
    t = await startApp(backend, { PADDOCK_COMPUTE_USD_PER_VCPU_HOUR: '0', PADDOCK_COMPUTE_USD_PER_GIB_HOUR: '0' }, { runtime });
    const signed = await t.signupOnPlan('pro');
    key = signed.key;
    accountId = signed.account.id;
    stage = createEvalStage({ evals: t.services.evals });
    t.services.sandboxes!.lifecycle.subscribe({
      name: 'test llm spend',
      onExec: async ({ accountId: owner, sandboxId, command }) => {
        if (!command.includes(LLM_MARK)) return;
        const event = {
          session_id: `agent-${sandboxId}`,
          sandbox_id: sandboxId,
          type: 'llm_call',
          timestamp: new Date().toISOString(),
          payload: { model: 'gpt-4o', provider: 'openai', tokens_in: 10, tokens_out: 5, cost_usd: 0.3 },
        };
        const result = await t.services.sessions.ingest(owner, [event]);
        expect(result.accepted).toBe(1);
      },
    });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('runs a scenario through the API in a fresh sandbox it destroys, and records the result', async () => {
    const greets = await scenario('greets', 'echo hello; echo note >&2', [
      { type: 'exit_code', equals: 0 },
      { type: 'output_equals', value: 'hello' },
      { type: 'output_contains', value: 'note', stream: 'stderr' },
      { type: 'output_matches', pattern: '^HEL', flags: 'i', weight: 2 },
    ]);
    const run = await post(`/v1/evals/scenarios/${greets.id}/run`);
    expect(run.status).toBe(200);
    expect(run.body).toMatchObject({ scenario_id: greets.id, suite_id: null, status: 'passed', pass_rate: 1, score: 1, cost_usd: 0, source: 'api', pipeline_run_id: null });
    const [only] = run.body.scenarios;
    expect(only).toMatchObject({ name: 'greets', status: 'passed', score: 1, exit_code: 0, timed_out: false, error: null });
    expect(only.checks.map((c: any) => c.passed)).toEqual([true, true, true, true]);
    const sandbox = await t.request('GET', `/v1/sandboxes/${only.sandbox_id}`, { token: key });
    expect(sandbox.body.status).toBe('destroyed');
    expect(await liveSandboxes()).toBe(0);
    const results = await t.request('GET', `/v1/evals/scenarios/${greets.id}/results`, { token: key });
    expect(results.body.map((r: any) => r.id)).toEqual([run.body.id]);

    const suite = (await post('/v1/evals/suites', { name: 'api-suite', scenario_ids: [greets.id] })).body;
    const suiteRun = await post(`/v1/evals/suites/${suite.id}/run`);
    expect(suiteRun.status).toBe(200);
    expect(suiteRun.body).toMatchObject({ suite_id: suite.id, scenario_id: null, status: 'passed', pass_rate: 1, score: 1 });
    // a suite's run is its own result, not one of the scenario's
    expect((await t.request('GET', `/v1/evals/scenarios/${greets.id}/results`, { token: key })).body).toHaveLength(1);
    expect((await t.request('GET', `/v1/evals/suites/${suite.id}/results`, { token: key })).body.map((r: any) => r.id)).toEqual([suiteRun.body.id]);
  });

  it('runs a suite as a stage: pass rate, score, every gate_result field, the result in state', async () => {
    const ok = await scenario('suite-ok', 'echo 42', [{ type: 'output_equals', value: '42' }]);
    const half = await scenario(
      'suite-half',
      'echo partial; exit 3',
      [
        { type: 'output_contains', value: 'partial' },
        { type: 'exit_code', equals: 0 },
      ],
      { pass_threshold: 0.9 },
    );
    const suite = (await post('/v1/evals/suites', { name: 'nightly', scenario_ids: [ok.id, half.id] })).body;

    const context = stageContext(accountId, 'quality', { suite_name: 'nightly', min_pass_rate: 0.5, max_cost_usd: 1, fail_on_regression: true, store_result_in_state: true });
    const outcome = await stage(context);
    expect(outcome.status).toBe('succeeded');
    const gate = outcome.gate_result!;
    expect(gate).toMatchObject({ passed: true, score: 0.75, total_cost: 0, baseline_score: 0.75, baseline_count: 0, score_delta: 0, is_regression: false, regression_pct: 0, failed_checks: [] });
    expect(gate.passed_checks.map((c) => [c.type, c.expected, c.actual])).toEqual([
      ['eval_status', 'passed or failed', 'failed'],
      ['min_pass_rate', '>= 0.5', '0.5'],
      ['max_cost', '<= 1', '0'],
      ['regression', 'score drop <= 0.1', 'no baseline yet'],
    ]);
    expect(Date.parse(gate.evaluated_at)).toBeGreaterThan(Date.now() - 120_000);

    const stored = JSON.parse(context.stateEntries.get('eval_result')!.value);
    expect(stored).toMatchObject({ status: 'failed', pass_rate: 0.5, score: 0.75, cost_usd: 0, gate_result: { passed: true } });
    expect(stored.scenarios.map((s: any) => [s.name, s.status, s.score, s.exit_code])).toEqual([
      ['suite-ok', 'passed', 1, 0],
      ['suite-half', 'failed', 0.5, 3],
    ]);
    const [recorded] = (await t.request('GET', `/v1/evals/suites/${suite.id}/results`, { token: key })).body;
    expect(recorded).toMatchObject({ id: stored.eval_result_id, suite_id: suite.id, source: 'pipeline', pipeline_run_id: context.runId, stage_name: 'quality' });
    expect(context.logged.map((l) => l.text).join('')).toContain('suite-half: failed, score 0.5, exit code 3');
    expect(await liveSandboxes()).toBe(0);
  });

  it('fails on a regression against the baseline of earlier runs, by id', async () => {
    const flaky = await scenario('regresses', 'echo a; echo b', [
      { type: 'output_contains', value: 'a' },
      { type: 'output_contains', value: 'b' },
    ]);
    expect((await post(`/v1/evals/scenarios/${flaky.id}/run`)).body.score).toBe(1);
    await t.request('PUT', `/v1/evals/scenarios/${flaky.id}`, { token: key, body: { command: 'echo a' } });

    const outcome = await stage(
      stageContext(accountId, 'gatekeeper', {
        scenario_id: flaky.id,
        min_pass_rate: 0,
        fail_on_regression: true,
        regression_threshold: 0.2,
        baseline_count: 3,
        store_result_in_state: true,
        result_state_key: 'regress',
      }),
    );
    expect(outcome.status).toBe('failed');
    expect(outcome.gate_result).toMatchObject({ passed: false, score: 0.5, baseline_score: 1, baseline_count: 1, score_delta: -0.5, is_regression: true, regression_pct: 50 });
    expect(outcome.gate_result!.failed_checks).toEqual([
      {
        type: 'regression',
        expected: 'score drop <= 0.2',
        actual: 'drop 0.5 from baseline 1',
        passed: false,
        message: 'score 0.5 regressed 50% from the baseline 1 of the last 1 runs (allowed drop 0.2)',
      },
    ]);
    expect(outcome.error).toBe(outcome.gate_result!.message);
  });

  it('fails max_cost and stops starting scenarios once the run costs more than max_cost_usd', async () => {
    const costly = await scenario('costly', `echo ${LLM_MARK}`, [{ type: 'exit_code', equals: 0 }]);
    const never = await scenario('never-run', 'echo unreachable', [{ type: 'exit_code', equals: 0 }]);
    await post('/v1/evals/suites', { name: 'budget', scenario_ids: [costly.id, never.id] });
    const outcome = await stage(stageContext(accountId, 'budget', { suite_name: 'budget', max_cost_usd: 0.1, min_pass_rate: 0.5 }));
    expect(outcome.status).toBe('failed');
    expect(outcome.gate_result).toMatchObject({ total_cost: 0.3, score: 0.5 });
    expect(outcome.cost_usd).toBe(0.3);
    expect(outcome.gate_result!.failed_checks.map((c) => [c.type, c.actual])).toEqual([
      ['eval_status', 'errored'],
      ['max_cost', '0.3'],
    ]);
    expect(outcome.gate_result!.failed_checks[0].message).toBe('the eval run errored');
  });

  it('runs a pipeline whose eval stages name a scenario and a suite by the ids Paddock gave them', async () => {
    const answer = await scenario('by-id', 'echo 42', [{ type: 'output_equals', value: '42' }]);
    const suite = (await post('/v1/evals/suites', { name: 'by-id-suite', scenario_ids: [answer.id] })).body;
    expect(answer.id).toMatch(/^evs_/);
    expect(suite.id).toMatch(/^evt_/);
    const pipeline = await createPipeline(t, key, {
      stages: [
        { name: 'scenario', type: 'eval', config: { scenario_id: answer.id, min_pass_rate: 1 } },
        { name: 'suite', type: 'eval', depends_on: ['scenario'], config: { suite_id: suite.id, min_pass_rate: 1 } },
      ],
    });
    const run = await startRun(t, key, pipeline.id);
    const done = await waitForRun(t, key, pipeline.id, run.id, undefined, 120_000);
    expect(done.status, JSON.stringify(done.stages)).toBe('succeeded');
    expect(stageOf(done, 'scenario').gate_result).toMatchObject({ passed: true, score: 1 });
    expect(stageOf(done, 'suite').gate_result).toMatchObject({ passed: true, score: 1 });
    expect((await t.request('GET', `/v1/evals/scenarios/${answer.id}/results`, { token: key })).body[0]).toMatchObject({ source: 'pipeline', pipeline_run_id: run.id, stage_name: 'scenario' });
    expect((await t.request('GET', `/v1/evals/suites/${suite.id}/results`, { token: key })).body[0]).toMatchObject({ source: 'pipeline', pipeline_run_id: run.id, stage_name: 'suite' });
  });

  it('fails with a clear error when the named scenario does not exist or the config is wrong', async () => {
    expect(await stage(stageContext(accountId, 'x', { scenario_name: 'nope' }))).toEqual({ status: 'failed', error: 'eval stage: no scenario named nope in this account' });
    expect(await stage(stageContext(accountId, 'x', { suite_id: 'evt_missing' }))).toEqual({ status: 'failed', error: 'eval stage: no suite evt_missing in this account' });
    expect(await stage(stageContext(accountId, 'x', { min_pass_rate: 0.5 }))).toEqual({ status: 'failed', error: 'config must name exactly one of scenario_id, scenario_name, suite_id, suite_name' });
    expect(await stage(stageContext(accountId, 'x', { scenario_name: 'greets', min_pass_rate: 2 }))).toEqual({ status: 'failed', error: 'config.min_pass_rate must be a number from 0 to 1' });
  });

  it('destroys at start the sandboxes of eval runs the previous process did not finish', async () => {
    const created = await post('/v1/sandboxes', { template: 'minimal', network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1 });
    // what a process killed during an eval run leaves behind: a held sandbox, still running
    await t.storage.db.insertInto('eval_sandboxes').values({ sandbox_id: created.body.id, account_id: accountId, created_at: new Date().toISOString() }).execute();
    await t.storage.db.insertInto('eval_sandboxes').values({ sandbox_id: 'sbx_gone', account_id: accountId, created_at: new Date().toISOString() }).execute();
    expect(await t.services.evals.reapInterrupted()).toBe(2);
    expect((await t.request('GET', `/v1/sandboxes/${created.body.id}`, { token: key })).body.status).toBe('destroyed');
    expect(await t.storage.db.selectFrom('eval_sandboxes').selectAll().execute()).toEqual([]);
  });

  it('stops promptly when the signal aborts: the sandbox is destroyed and nothing is recorded', async () => {
    const sleeper = await scenario('sleeps', 'sleep 60', [{ type: 'exit_code', equals: 0 }], { timeout_seconds: 120 });
    const context = stageContext(accountId, 'slow', { scenario_id: sleeper.id });
    const started = Date.now();
    setTimeout(() => context.controller.abort(new Error('run canceled')), 2000);
    const outcome = await stage(context);
    expect(outcome).toEqual({ status: 'failed', error: 'eval run stopped: run canceled' });
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(await liveSandboxes()).toBe(0);
    expect(await t.storage.db.selectFrom('eval_sandboxes').selectAll().execute()).toEqual([]);
    expect((await t.request('GET', `/v1/evals/scenarios/${sleeper.id}/results`, { token: key })).body).toEqual([]);
  });
});
