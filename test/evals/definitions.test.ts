// Eval scenarios and suites through the API: creation with defaults, validation naming the field,
// names unique per account, isolation between accounts, updates, deletion rules; SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';

const scenarioBody = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  template: 'minimal',
  command: 'echo hello',
  checks: [
    { type: 'exit_code', equals: 0 },
    { type: 'output_contains', value: 'hello', weight: 2 },
  ],
  ...extra,
});

describe.each(BACKENDS)('eval scenarios and suites on %s', (backend) => {
  let t: TestApp;
  let key: string;
  let other: string;

  beforeAll(async () => {
    t = await startApp(backend);
    key = (await t.signup()).key;
    other = (await t.signup()).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  const post = (path: string, body: unknown, token = key) => t.request('POST', path, { token, body });

  it('creates a scenario with its defaults and serves it back', async () => {
    const created = await post('/v1/evals/scenarios', scenarioBody('greets'));
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ name: 'greets', description: '', template: 'minimal', command: 'echo hello', env: {}, network_mode: 'none', timeout_seconds: 60, pass_threshold: 1 });
    expect(created.body.id).toMatch(/^evs_/);
    expect(created.body.checks).toEqual([
      { type: 'exit_code', equals: 0 },
      { type: 'output_contains', value: 'hello', weight: 2 },
    ]);
    const fetched = await t.request('GET', `/v1/evals/scenarios/${created.body.id}`, { token: key });
    expect(fetched.body).toEqual(created.body);
    const listed = await t.request('GET', '/v1/evals/scenarios', { token: key });
    expect(listed.body.map((s: any) => s.name)).toContain('greets');
  });

  it('answers 409 for a second scenario with the same name, but another account may use it', async () => {
    expect((await post('/v1/evals/scenarios', scenarioBody('twice'))).status).toBe(201);
    const again = await post('/v1/evals/scenarios', scenarioBody('twice'));
    expect(again.status).toBe(409);
    expect(again.body.error).toBe('a scenario named twice already exists');
    expect((await post('/v1/evals/scenarios', scenarioBody('twice'), other)).status).toBe(201);
  });

  it.each([
    [{ checks: [] }, 'body.checks must NOT have fewer than 1 items'],
    [{ checks: [{ type: 'exit_code' }] }, 'body.checks[0].equals is required for a exit_code check'],
    [{ checks: [{ type: 'output_contains', value: 'x', pattern: 'y' }] }, 'body.checks[0].pattern is not used by a output_contains check'],
    [
      {
        checks: [
          { type: 'exit_code', equals: 0 },
          { type: 'output_matches', pattern: '(' },
        ],
      },
      /^body\.checks\[1\]\.pattern is not a valid regular expression: /,
    ],
    [{ checks: [{ type: 'nope' }] }, /^body\.checks\.0\.type must be one of: exit_code, output_contains/],
    [{ checks: [{ type: 'exit_code', equals: 0, weight: 0 }] }, 'body.checks.0.weight must be > 0'],
    [{ template: 'windows' }, /^body\.template/],
    [{ pass_threshold: 1.5 }, 'body.pass_threshold must be <= 1'],
    [{ timeout_seconds: 0 }, 'body.timeout_seconds must be >= 1'],
    [{ surprise: true }, 'body.surprise is not a known field'],
  ])('rejects %j with a 400 naming the field', async (extra, message) => {
    const reply = await post('/v1/evals/scenarios', scenarioBody(`bad-${Math.random().toString(36).slice(2)}`, extra));
    expect(reply.status).toBe(400);
    if (typeof message === 'string') expect(reply.body.error).toBe(message);
    else expect(reply.body.error).toMatch(message);
  });

  it("answers 404 for another account's scenario and suite", async () => {
    const scenario = (await post('/v1/evals/scenarios', scenarioBody('mine'))).body;
    const suite = (await post('/v1/evals/suites', { name: 'mine', scenario_ids: [scenario.id] })).body;
    for (const path of [`/v1/evals/scenarios/${scenario.id}`, `/v1/evals/suites/${suite.id}`]) {
      expect((await t.request('GET', path, { token: other })).status).toBe(404);
      expect((await t.request('DELETE', path, { token: other })).status).toBe(404);
      expect((await t.request('PUT', path, { token: other, body: { description: 'x' } })).status).toBe(404);
      expect((await t.request('GET', `${path}/results`, { token: other })).status).toBe(404);
    }
    expect((await post(`/v1/evals/scenarios/${scenario.id}/run`, undefined, other)).status).toBe(404);
    const borrowing = await post('/v1/evals/suites', { name: 'borrow', scenario_ids: [scenario.id] }, other);
    expect(borrowing.status).toBe(400);
    expect(borrowing.body.error).toBe(`body.scenario_ids[0] names no scenario of this account (${scenario.id})`);
  });

  it('updates a scenario and keeps the rest; a taken name answers 409', async () => {
    const scenario = (await post('/v1/evals/scenarios', scenarioBody('changing', { timeout_seconds: 30, network_mode: 'full' }))).body;
    await post('/v1/evals/scenarios', scenarioBody('taken'));
    const updated = await t.request('PUT', `/v1/evals/scenarios/${scenario.id}`, { token: key, body: { command: 'echo bye', pass_threshold: 0.5, env: { A: '1' } } });
    expect(updated.status).toBe(200);
    expect(updated.body).toMatchObject({ name: 'changing', command: 'echo bye', pass_threshold: 0.5, timeout_seconds: 30, network_mode: 'full', env: { A: '1' }, checks: scenario.checks });
    expect((await t.request('GET', `/v1/evals/scenarios/${scenario.id}`, { token: key })).body).toEqual(updated.body);
    expect((await t.request('PUT', `/v1/evals/scenarios/${scenario.id}`, { token: key, body: { name: 'taken' } })).status).toBe(409);
    expect((await t.request('PUT', `/v1/evals/scenarios/${scenario.id}`, { token: key, body: {} })).status).toBe(400);
    const badCheck = await t.request('PUT', `/v1/evals/scenarios/${scenario.id}`, { token: key, body: { checks: [{ type: 'output_equals' }] } });
    expect(badCheck.body.error).toBe('body.checks[0].value is required for a output_equals check');
  });

  it('keeps a scenario a suite uses until the suite lets go of it', async () => {
    const a = (await post('/v1/evals/scenarios', scenarioBody('suite-a'))).body;
    const b = (await post('/v1/evals/scenarios', scenarioBody('suite-b'))).body;
    const suite = await post('/v1/evals/suites', { name: 'both', description: 'two', scenario_ids: [b.id, a.id] });
    expect(suite.status).toBe(201);
    expect(suite.body).toMatchObject({ name: 'both', description: 'two', scenario_ids: [b.id, a.id] });
    expect(suite.body.id).toMatch(/^evt_/);
    expect((await post('/v1/evals/suites', { name: 'both', scenario_ids: [a.id] })).status).toBe(409);
    expect((await post('/v1/evals/suites', { name: 'dupes', scenario_ids: [a.id, a.id] })).body.error).toMatch(/^body\.scenario_ids must NOT have duplicate items/);

    const refused = await t.request('DELETE', `/v1/evals/scenarios/${a.id}`, { token: key });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe(`scenario ${a.id} is used by suite both; remove it from the suite first`);
    expect((await t.request('PUT', `/v1/evals/suites/${suite.body.id}`, { token: key, body: { scenario_ids: [b.id] } })).body.scenario_ids).toEqual([b.id]);
    expect((await t.request('DELETE', `/v1/evals/scenarios/${a.id}`, { token: key })).status).toBe(204);
    expect((await t.request('GET', `/v1/evals/scenarios/${a.id}`, { token: key })).status).toBe(404);
    expect((await t.request('DELETE', `/v1/evals/suites/${suite.body.id}`, { token: key })).status).toBe(204);
    expect((await t.request('GET', `/v1/evals/suites/${suite.body.id}`, { token: key })).status).toBe(404);
    expect((await t.request('GET', `/v1/evals/scenarios/${b.id}`, { token: key })).status).toBe(200);
  });

  it('refuses to run without a sandbox runtime (503), and lists no results yet', async () => {
    const scenario = (await post('/v1/evals/scenarios', scenarioBody('no-runtime'))).body;
    const run = await post(`/v1/evals/scenarios/${scenario.id}/run`, undefined);
    expect(run.status).toBe(503);
    expect(run.body.error).toBe('this server has no sandbox runtime, so evals cannot run');
    expect((await t.request('GET', `/v1/evals/scenarios/${scenario.id}/results`, { token: key })).body).toEqual([]);
  });

  it('pages lists with limit and offset', async () => {
    const { key: fresh } = await t.signup();
    for (const name of ['p1', 'p2', 'p3']) await post('/v1/evals/scenarios', scenarioBody(name), fresh);
    const page = await t.request('GET', '/v1/evals/scenarios?limit=2&offset=1', { token: fresh });
    expect(page.body.map((s: any) => s.name)).toEqual(['p2', 'p3']);
    expect((await t.request('GET', '/v1/evals/scenarios?limit=1000', { token: fresh })).status).toBe(400);
  });

  it('is refused to sandbox- and read-scope keys (403)', async () => {
    for (const scope of ['sandbox', 'read']) {
      const minted = await post('/v1/account/keys', { name: `narrow-${scope}`, scope });
      expect(minted.status).toBe(201);
      expect((await t.request('GET', '/v1/evals/scenarios', { token: minted.body.key })).status).toBe(403);
      expect((await post('/v1/evals/suites', { name: 'x', scenario_ids: ['evs_x'] }, minted.body.key)).status).toBe(403);
    }
  });
});
