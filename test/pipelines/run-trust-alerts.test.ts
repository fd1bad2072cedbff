// A trust fall caused by an event the run engine writes into the run's session (here an approval
// message that shows an access key) raises the account's trust alert right after the transition
// commits, not at the session sweeper's next pass (30 s apart with this inactivity timeout); on SQLite
// and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createPipeline, getRun, startRun, stageOf } from '../helpers/pipelines.js';
import { waitFor } from '../helpers/wait-for.js';

describe.each(BACKENDS)('trust alerts from run events on %s', (backend) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startApp(backend, { PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50', PADDOCK_SESSION_INACTIVITY_TIMEOUT_SECONDS: '3600' });
    key = (await t.signup()).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('raises trust_low as soon as the event that lowered the score is committed', async () => {
    const rules = (await t.request('GET', '/v1/alerts/rules', { token: key })).body;
    const low = rules.find((r: any) => r.type === 'trust_low');
    expect((await t.request('PUT', `/v1/alerts/rules/${low.id}`, { token: key, body: { threshold: 99 } })).status).toBe(200);
    const pipeline = await createPipeline(t, key, {
      stages: [{ name: 'ship-it', type: 'await_approval', config: { message: 'Deploy with AKIAIOSFODNN7EXAMPLE?', channels: ['dashboard'] } }],
    });
    const started = await startRun(t, key, pipeline.id);
    const raised = await waitFor(
      "an alert on the run's session",
      async () => {
        const open = (await t.request('GET', '/v1/alerts?resolved=false', { token: key })).body.filter((a: any) => a.resource?.id === started.session_id);
        return open.length > 0 && open;
      },
      5000,
    );
    expect(stageOf(await getRun(t, key, pipeline.id, started.id), 'ship-it').status).toBe('paused_approval');
    expect(raised.map((a: any) => [a.type, a.details.trust_score, a.details.threshold, a.details.rules])).toEqual([['trust_low', 70, 99, ['secret_in_output']]]);
    const session = (await t.request('GET', `/v1/sessions/${started.session_id}`, { token: key })).body;
    expect(session.trust_score).toBe(70);
  });
});
