// The SDK's pipelines area with sandbox stages on runc: waitForRun on a run that fails after retries, and
// the logs of each attempt of a stage (and of one attempt).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Paddock } from '../../../sdk/src/index.js';
import { startApp, type TestApp } from '../../helpers/app.js';

describe('SDK pipelines with command stages on runc', () => {
  let t: TestApp;
  let paddock: Paddock;

  beforeAll(async () => {
    t = await startApp('sqlite', { PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50' }, { runtime: 'runc' });
    paddock = new Paddock({ url: t.url, apiKey: (await t.signupOnPlan('enterprise')).key });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('waitForRun resolves at `failed` after the retries, and logs shows every attempt of the stage', async () => {
    const pipeline = await paddock.pipelines.create({
      name: 'retried',
      stages: [
        { name: 'greet', type: 'command', command: 'echo "hello $WHO"' },
        { name: 'flaky', type: 'command', command: 'echo "try"; echo "broken" >&2; exit 3', depends_on: ['greet'], retry: { max_attempts: 2, backoff: '1s' } },
      ],
    });
    const run = await paddock.pipelines.run(pipeline.id, { env: { WHO: 'sdk' } });
    const done = await paddock.pipelines.waitForRun(run, { pollMs: 200, timeoutMs: 120_000 });
    expect(done.status).toBe('failed');
    expect(done.stages.map((stage) => [stage.name, stage.status, stage.exit_code])).toEqual([
      ['greet', 'succeeded', 0],
      ['flaky', 'failed', 3],
    ]);

    expect((await paddock.pipelines.logs(pipeline.id, run.id, 'greet')).attempts.map((attempt) => attempt.stdout)).toEqual(['hello sdk\n']);
    const flaky = await paddock.pipelines.logs(pipeline.id, run.id, 'flaky');
    expect(flaky.attempts.map((attempt) => [attempt.attempt, attempt.status, attempt.exit_code, attempt.stdout, attempt.stderr])).toEqual([
      [1, 'failed', 3, 'try\n', 'broken\n'],
      [2, 'failed', 3, 'try\n', 'broken\n'],
    ]);
    expect((await paddock.pipelines.logs(pipeline.id, run.id, 'flaky', { attempt: 2 })).attempts.map((attempt) => attempt.attempt)).toEqual([2]);
  }, 150_000);
});
