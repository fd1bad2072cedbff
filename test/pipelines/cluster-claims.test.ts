// Which stages a server's pipeline worker claims. In a cluster, an api node (no runtime) leaves command
// and eval stages pending for a worker and still runs what needs none (gates); a lone server without a runtime
// fails a command stage at once, saying why, rather than leaving it pending forever.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestApp } from '../helpers/app.js';
import { createPipeline, startRun, stageOf, waitForRun } from '../helpers/pipelines.js';
import { waitFor } from '../helpers/wait-for.js';

const stages = [
  { name: 'check', type: 'gate', config: { expression: 'true' } },
  { name: 'build', type: 'command', command: 'true', depends_on: ['check'] },
];

describe('stage claims by what a node can run', () => {
  let api: TestApp;
  let lone: TestApp;

  beforeAll(async () => {
    const cluster = { PADDOCK_CLUSTER_SECRET: randomBytes(32).toString('base64'), PADDOCK_SECRETS_KEY: randomBytes(32).toString('hex'), PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50' };
    api = await startApp('postgres', { ...cluster, PADDOCK_ROLE: 'api', PADDOCK_HOST_ID: 'api-claims' });
    lone = await startApp('sqlite', { PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50' });
  });
  afterAll(async () => {
    await api?.close();
    await lone?.close();
  });

  it('an api node runs the gate and leaves the command and eval stages pending for a worker', async () => {
    const key = (await api.signup()).key;
    const score = { name: 'score', type: 'eval', config: { scenario_id: 'evs_01jb0000000000000000000000' }, depends_on: ['check'] };
    const pipeline = await createPipeline(api, key, { stages: [...stages, score] });
    const started = await startRun(api, key, pipeline.id, {});
    const run = await waitFor(
      'the gate to pass',
      async () => {
        const current = (await api.request('GET', `/v1/pipelines/${pipeline.id}/runs/${started.id}`, { token: key })).body;
        return stageOf(current, 'check').status === 'succeeded' ? current : Promise.reject(new Error(JSON.stringify(current.stages)));
      },
      15_000,
      50,
    );
    // Several poll intervals later the command stage is still unclaimed: no attempt, no error.
    await new Promise((resolve) => setTimeout(resolve, 600));
    const later = (await api.request('GET', `/v1/pipelines/${pipeline.id}/runs/${started.id}`, { token: key })).body;
    expect(run.status).toBe('running');
    expect(stageOf(later, 'build')).toMatchObject({ status: 'pending', attempt: 0 });
    expect(stageOf(later, 'score')).toMatchObject({ status: 'pending', attempt: 0 });
    expect(later.status).toBe('running');
  });

  it('a lone server without a runtime fails the command stage with the reason', async () => {
    const key = (await lone.signup()).key;
    const pipeline = await createPipeline(lone, key, { stages });
    const started = await startRun(lone, key, pipeline.id, {});
    const done = await waitForRun(lone, key, pipeline.id, started.id);
    expect(done.status).toBe('failed');
    expect(stageOf(done, 'build').error).toMatch(/stage type command cannot run on this server/);
  });
});
