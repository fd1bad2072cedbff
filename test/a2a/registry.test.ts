// The agent registry through the real HTTP API, on every backend: registration round trip, reads,
// changes, deletes, and every refusal with the agent-delegation error body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createPipeline, ECHO_SKILL, registerAgent } from '../helpers/a2a.js';

describe.each(BACKENDS)('agent registry on %s', (backend) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startApp(backend);
    key = (await t.signup()).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('registers an agent and answers every field of the registration, read back by GET', async () => {
    const pipeline = await createPipeline(t.url, key);
    const before = Date.now();
    const agent = await registerAgent(t.url, key, {
      name: 'summarizer',
      description: 'Summarizes text.',
      pipeline_id: pipeline.id,
      template: 'python',
      skills: [ECHO_SKILL, { id: 'sum', name: 'Sum', input_schema: { type: 'object' } }],
      public: true,
      max_cost_per_task: 0.5,
      rate_limit_rpm: 30,
    });
    expect(agent).toMatchObject({
      name: 'summarizer',
      description: 'Summarizes text.',
      pipeline_id: pipeline.id,
      template: 'python',
      skills: [ECHO_SKILL, { id: 'sum', name: 'Sum', description: '', tags: [], input_schema: { type: 'object' } }],
      public: true,
      enabled: true,
      max_cost_per_task: 0.5,
      rate_limit_rpm: 30,
      version: 1,
      url: `${t.url}/a2a/${agent.id}`,
    });
    expect(agent.id).toMatch(/^agt_/);
    expect(agent.account_id).toMatch(/^acc_/);
    expect(Date.parse(agent.created_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(agent.updated_at).toBe(agent.created_at);

    const read = await t.request('GET', `/v1/a2a/agents/${agent.id}`, { token: key });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(agent);
  });
});
