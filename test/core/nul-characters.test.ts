// A NUL (U+0000) in a path parameter or a query value: PostgreSQL's text cannot hold one, and such a
// request answered 500 there (found by the route fuzzer, fuzz-routes.test.ts seed 162026, requests
// #805, #819, #916 and, with sandbox routes, #425, #502, #1231). Now a path id with a NUL names nothing
// (404) and a query value with one is a 400 naming it, on both databases alike. JSON bodies too: a
// key or pipeline whose name or command held a NUL answered 500 on PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';

describe.each(BACKENDS)('NUL characters in paths and queries on %s', (backend) => {
  let t: TestApp;
  let key: string;
  let pipelineId: string;
  beforeAll(async () => {
    t = await startApp(backend);
    key = (await t.signup()).key;
    const pipeline = await t.request('POST', '/v1/pipelines', { token: key, body: { name: 'nul', stages: [{ name: 'a', type: 'command', command: 'true', template: 'minimal' }] } });
    expect(pipeline.status, pipeline.text).toBe(201);
    pipelineId = pipeline.body.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers 404 for a path id holding a NUL, naming the parameter', async () => {
    const cases: [string, string, string][] = [
      ['DELETE', '/v1/evals/suites/%F1%A8%AD%87%00_', 'params.id'],
      ['POST', '/v1/evals/suites/%00/run', 'params.id'],
      ['GET', `/v1/pipelines/${pipelineId}/runs/%00/stages`, 'params.run_id'],
      ['GET', `/v1/pipelines/${pipelineId}/runs/%00/state`, 'params.run_id'],
      ['GET', '/v1/evals/scenarios/%00', 'params.id'],
      ['DELETE', '/v1/secrets/A%00B', 'params.name'],
    ];
    for (const [method, path, field] of cases) {
      const reply = await t.request(method, path, { token: key });
      expect(reply.status, `${method} ${path}`).toBe(404);
      expect(reply.body).toEqual({ error: `${field} contains a NUL character (U+0000): nothing has such an id`, code: 'not_found' });
    }
  });

  it('answers 400 for a JSON body string or key holding a NUL, naming it, and stores nothing', async () => {
    const cases: [string, string, unknown, string][] = [
      ['POST', '/v1/account/keys', { name: 'k\u0000' }, 'body.name'],
      ['POST', '/v1/pipelines', { name: 'p\u0000', stages: [{ name: 'a', type: 'command', command: 'true', template: 'minimal' }] }, 'body.name'],
      ['POST', '/v1/pipelines', { name: 'p2', stages: [{ name: 'a', type: 'command', command: 'true\u0000', template: 'minimal' }] }, 'body.stages[0].command'],
      ['POST', '/v1/pipelines', { name: 'p3', stages: [{ name: 'a', type: 'command', command: 'true', template: 'minimal', env: { ['A\u0000']: 'x' } }] }, 'body.stages[0].env key'],
      ['PUT', '/v1/secrets/NUL', { value: 'v\u0000' }, 'body.value'],
      // fuzz seed 162026 #371, with the body rule off: login answered 500 on PostgreSQL
      ['POST', '/login', { email: 'x\u0000@example.com', password: 'x\u0000xxxxxxx' }, 'body.email'],
    ];
    for (const [method, path, body, field] of cases) {
      const reply = await t.request(method, path, { token: key, body });
      expect(reply.status, `${method} ${path} ${field}`).toBe(400);
      expect(reply.body.error).toContain(field);
      expect(reply.body.error).toContain('must not contain NUL characters (U+0000)');
    }
    expect((await t.request('GET', '/v1/pipelines', { token: key })).body.map((p: any) => p.name)).toEqual(['nul']);
    expect((await t.request('GET', '/v1/secrets', { token: key })).body).toEqual([]);
  });

  it('answers 400 for a query value holding a NUL, naming it', async () => {
    const reply = await t.request('GET', '/v1/alerts?sandbox_id=sbx%00', { token: key });
    expect(reply.status).toBe(400);
    expect(reply.body).toEqual({ error: 'query.sandbox_id must not contain NUL characters (U+0000)', code: 'invalid_field', field: 'query.sandbox_id' });
    expect((await t.request('GET', '/v1/sessions?status=active&sandbox_id=%00', { token: key })).status).toBe(400);
  });
});
