// Pipeline definitions and versions: create, validation naming the problem, uniqueness, updates as new
// immutable versions, archive, account scoping; on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createPipeline, startRun } from '../helpers/pipelines.js';

const gate = { name: 'gate', type: 'gate', config: { expression: 'input.branch == "main"' } };

describe.each(BACKENDS)('pipeline definitions on %s', (backend) => {
  let t: TestApp;
  let key: string;
  let otherKey: string;

  beforeAll(async () => {
    t = await startApp(backend);
    ({ key } = await t.signup());
    ({ key: otherKey } = await t.signup());
  });
  afterAll(async () => {
    await t?.close();
  });

  it('creates version 1 and reads it back', async () => {
    const pipeline = await createPipeline(t, key, {
      name: 'build-and-test',
      description: 'ci',
      stages: [
        { name: 'build', type: 'command', command: 'make' },
        { name: 'test', type: 'command', command: 'make test', depends_on: ['build'] },
      ],
      defaults: { template: 'minimal', retry: { max_attempts: 2 } },
    });
    expect(pipeline).toMatchObject({ name: 'build-and-test', description: 'ci', status: 'active', version: 1, defaults: { template: 'minimal' } });
    expect(pipeline.id).toMatch(/^pip_/);
    const read = await t.request('GET', `/v1/pipelines/${pipeline.id}`, { token: key });
    expect(read.body).toEqual(pipeline);
    const list = await t.request('GET', '/v1/pipelines', { token: key });
    expect(list.body).toEqual([{ id: pipeline.id, name: 'build-and-test', status: 'active', version: 1, created_at: pipeline.created_at }]);
  });

  it('refuses a run whose repo is not https or carries credentials in its URL, starting nothing', async () => {
    const pipeline = await createPipeline(t, key, { stages: [gate] });
    for (const repo of ['http://example.com/r.git', 'https://x-access-token:ghp_secret@example.com/r.git', 'https://deploy@example.com/r.git']) {
      const reply = await t.request('POST', `/v1/pipelines/${pipeline.id}/runs`, { token: key, body: { repo } });
      expect(reply.status, repo).toBe(400);
      expect(reply.body).toMatchObject({ code: 'invalid_field', field: 'body.repo' });
      expect(reply.text).not.toContain('ghp_secret');
    }
    const runs = await t.request('GET', `/v1/pipelines/${pipeline.id}/runs`, { token: key });
    expect(runs.body).toHaveLength(0);
  });

  it('takes the scenario and suite ids Paddock hands out in eval stages, and refuses other shapes naming the field', async () => {
    const scenarioId = 'evs_01jb0000000000000000000000';
    const suiteId = 'evt_01jb0000000000000000000000';
    await createPipeline(t, key, { stages: [{ name: 'e', type: 'eval', config: { scenario_id: scenarioId } }] });
    await createPipeline(t, key, { stages: [{ name: 'e', type: 'eval', config: { suite_id: suiteId } }] });
    const refused: [Record<string, unknown>, string][] = [
      [{ scenario_id: '3fa85f64-5717-4562-b3fc-2c963f66afa6' }, 'body.stages[0].config.scenario_id'],
      [{ scenario_id: 'evs_short' }, 'body.stages[0].config.scenario_id'],
      [{ scenario_id: suiteId }, 'body.stages[0].config.scenario_id'],
      [{ scenario_id: `${scenarioId}' or '1'='1` }, 'body.stages[0].config.scenario_id'],
      [{ suite_id: scenarioId }, 'body.stages[0].config.suite_id'],
      [{ suite_id: '' }, 'body.stages[0].config.suite_id'],
    ];
    for (const [config, field] of refused) {
      const reply = await t.request('POST', '/v1/pipelines', { token: key, body: { name: `bad-${Math.random()}`, stages: [{ name: 'e', type: 'eval', config }] } });
      expect(reply.status, JSON.stringify(config)).toBe(400);
      expect(reply.body.error).toContain(field);
    }
    expect((await t.request('GET', '/v1/pipelines', { token: key })).body.filter((p: any) => p.name.startsWith('bad-'))).toEqual([]);
  });

  it('answers 400 for a version or attempt number no integer column holds (fuzz seed 777 #6702: versions/Infinity answered 500 on PostgreSQL)', async () => {
    const pipeline = await createPipeline(t, key, { stages: [gate] });
    for (const version of ['Infinity', '1e300', '2147483648']) {
      const reply = await t.request('GET', `/v1/pipelines/${pipeline.id}/versions/${version}`, { token: key });
      expect(reply.status, version).toBe(400);
      expect(reply.body.error).toContain('params.version');
    }
    const run = await startRun(t, key, pipeline.id);
    const logs = await t.request('GET', `/v1/pipelines/${pipeline.id}/runs/${run.id}/stages/gate/logs?attempt=Infinity`, { token: key });
    expect(logs.status).toBe(400);
    expect(logs.body.error).toContain('query.attempt');
  });

  it("takes an a2a stage's auth_secret only when it names a secret of the account, on create and on update", async () => {
    const a2a = (auth_secret: string) => ({ name: 'delegate', type: 'a2a', config: { agent_url: 'https://agent.example', skill_id: 's', prompt: 'p', auth_secret } });
    expect((await t.request('PUT', '/v1/secrets/AGENT_KEY', { token: key, body: { value: 'svc_sk_x' } })).status).toBe(201);
    const saved = await createPipeline(t, key, { name: 'delegating', stages: [a2a('AGENT_KEY')] });
    expect(saved.stages[0].config.auth_secret).toBe('AGENT_KEY');
    for (const [name, why] of [
      ['NOPE', /NOPE, which does not exist/],
      ['no way', /must name an account secret/],
    ] as const) {
      const created = await t.request('POST', '/v1/pipelines', { token: key, body: { name: `delegating-${name.length}`, stages: [a2a(name)] } });
      expect(created.status).toBe(400);
      expect(created.body).toMatchObject({ field: 'body.stages[0].config.auth_secret', error: expect.stringMatching(why) });
    }
    // Another account's secret of that name does not count.
    const other = await t.request('POST', '/v1/pipelines', { token: otherKey, body: { name: 'delegating', stages: [a2a('AGENT_KEY')] } });
    expect(other.status).toBe(400);
    const updated = await t.request('PUT', `/v1/pipelines/${saved.id}`, { token: key, body: { stages: [a2a('NOPE')] } });
    expect(updated.status).toBe(400);
    expect(updated.body.field).toBe('body.stages[0].config.auth_secret');
  });

  it('answers 409 for a name already used in the account, but not in another account', async () => {
    await createPipeline(t, key, { name: 'same', stages: [gate] });
    const again = await t.request('POST', '/v1/pipelines', { token: key, body: { name: 'same', stages: [gate] } });
    expect(again.status).toBe(409);
    expect(again.body.error).toMatch(/"same" already exists/);
    await createPipeline(t, otherKey, { name: 'same', stages: [gate] });
  });

  it.each([
    [
      'a cycle, named',
      [
        { name: 'a', type: 'command', command: 'x', depends_on: ['c'] },
        { name: 'b', type: 'command', command: 'x', depends_on: ['a'] },
        { name: 'c', type: 'command', command: 'x', depends_on: ['b'] },
      ],
      /cycle: a → b → c → a/,
    ],
    ['an unknown dependency', [{ name: 'a', type: 'command', command: 'x', depends_on: ['nope'] }], /body.stages\[0\].depends_on\[0\] names no stage of this pipeline: "nope"/],
    ['duplicate stage names', [gate, gate], /body.stages\[1\].name "gate" is used by another stage/],
    ['an unknown stage type', [{ name: 'a', type: 'docker' }], /body.stages\/0\/type|body.stages.0.type/],
    ['a bad duration', [{ name: 'a', type: 'command', command: 'x', timeout: '10 minutes' }], /body.stages\[0\].timeout must be a duration/],
    ['a CEL type error', [{ name: 'a', type: 'command', command: 'x', condition: { if: 'input.branch + 1' } }], /condition.if is not a valid CEL expression/],
    ['a gate expression that does not parse', [{ name: 'g', type: 'gate', config: { expression: '((' } }], /config.expression is not a valid CEL expression/],
    ['an approval without a known channel', [{ name: 'ok', type: 'await_approval', config: { channels: ['pager'] } }], /channels\[0\] must be one of dashboard, email, chat_a/],
    ['an unknown field', [{ name: 'a', type: 'command', command: 'x', retries: 3 }], /retries/],
    ['no stages', [], /at least one stage/],
  ])('refuses %s with 400 naming it', async (_what, stages, pattern) => {
    const reply = await t.request('POST', '/v1/pipelines', { token: key, body: { name: `bad-${Math.random()}`, stages } });
    expect(reply.status, reply.text).toBe(400);
    expect(reply.body.error).toMatch(pattern);
  });

  it('updates as a new immutable version; runs keep the version they started with', async () => {
    const pipeline = await createPipeline(t, key, { stages: [gate] });
    const run = await startRun(t, key, pipeline.id, { branch: 'main', repo: 'https://example.com/r.git' });
    expect(run).toMatchObject({ status: 'pending', version: 1, input: { env: {}, repo: 'https://example.com/r.git', branch: 'main' } });
    const updated = await t.request('PUT', `/v1/pipelines/${pipeline.id}`, { token: key, body: { description: 'v2', stages: [gate, { ...gate, name: 'gate2' }] } });
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body).toMatchObject({ version: 2, description: 'v2' });
    const versions = await t.request('GET', `/v1/pipelines/${pipeline.id}/versions`, { token: key });
    expect(versions.body.map((v: any) => [v.version, v.stages.length])).toEqual([
      [2, 2],
      [1, 1],
    ]);
    const v1 = await t.request('GET', `/v1/pipelines/${pipeline.id}/versions/1`, { token: key });
    expect(v1.body.stages).toEqual([gate]);
    expect((await t.request('GET', `/v1/pipelines/${pipeline.id}/versions/3`, { token: key })).status).toBe(404);
    const reread = await t.request('GET', `/v1/pipelines/${pipeline.id}/runs/${run.id}`, { token: key });
    expect(reread.body.version).toBe(1);
    const badUpdate = await t.request('PUT', `/v1/pipelines/${pipeline.id}`, { token: key, body: { stages: [{ ...gate, depends_on: ['gate'] }] } });
    expect(badUpdate.status).toBe(400);
    expect((await t.request('GET', `/v1/pipelines/${pipeline.id}`, { token: key })).body.version).toBe(2);
  });

  it('archives with 204, keeps runs, and refuses new runs with 409', async () => {
    const pipeline = await createPipeline(t, key, { stages: [gate] });
    const run = await startRun(t, key, pipeline.id);
    expect((await t.request('DELETE', `/v1/pipelines/${pipeline.id}`, { token: key })).status).toBe(204);
    expect((await t.request('GET', `/v1/pipelines/${pipeline.id}`, { token: key })).body.status).toBe('archived');
    expect((await t.request('GET', `/v1/pipelines/${pipeline.id}/runs/${run.id}`, { token: key })).status).toBe(200);
    const refused = await t.request('POST', `/v1/pipelines/${pipeline.id}/runs`, { token: key, body: {} });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/archived/);
  });

  it("answers 404 for another account's pipeline and run", async () => {
    const pipeline = await createPipeline(t, key, { stages: [gate] });
    const run = await startRun(t, key, pipeline.id);
    expect((await t.request('GET', `/v1/pipelines/${pipeline.id}`, { token: otherKey })).status).toBe(404);
    expect((await t.request('GET', `/v1/pipelines/${pipeline.id}/runs/${run.id}`, { token: otherKey })).status).toBe(404);
    expect((await t.request('PUT', `/v1/pipelines/${pipeline.id}/runs/${run.id}/state/k`, { token: otherKey, body: { value: 'x' } })).status).toBe(404);
  });
});
