// The agent registry through the real HTTP API, on every backend: registration round trip, list,
// change, delete, and every refusal answered with the agent-delegation error body and the spec's codes.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createPipeline, ECHO_SKILL, registerAgent } from '../helpers/a2a.js';

describe.each(BACKENDS)('agent registry on %s', (backend) => {
  let t: TestApp;
  let key: string;
  let pipelineId: string;

  beforeAll(async () => {
    t = await startApp(backend);
    key = (await t.signup()).key;
    pipelineId = (await createPipeline(t.url, key)).id;
  });
  afterAll(async () => {
    await t?.close();
  });

  const register = (body: Record<string, unknown>, token = key) =>
    t.request('POST', '/v1/a2a/agents', { token, body: { name: `a-${Math.random().toString(36).slice(2)}`, pipeline_id: pipelineId, skills: [ECHO_SKILL], ...body } });

  function expectError(reply: { status: number; body: any; text: string }, status: number, code: string, field?: string) {
    expect(reply.status, reply.text).toBe(status);
    expect(reply.body.error).toMatchObject({ code, message: expect.any(String), details: expect.any(Object) });
    if (field) {
      expect(reply.body.error.details.field).toBe(field);
      expect(reply.body.error.message).toContain(field);
    }
  }

  it('registers an agent and answers every field of the registration, read back by GET', async () => {
    const pipeline = await createPipeline(t.url, key);
    const before = Date.now();
    const agent = await registerAgent(t.url, key, {
      name: 'summarizer',
      description: 'Summarizes text.',
      pipeline_id: pipeline.id,
      template: 'python-312',
      skills: [ECHO_SKILL, { id: 'sum', name: 'Sum', input_schema: { type: 'object' } }],
      public: true,
      max_cost_per_task: 0.5,
      rate_limit_rpm: 30,
    });
    expect(agent).toEqual({
      id: expect.stringMatching(/^agt_/),
      account_id: expect.stringMatching(/^acc_/),
      name: 'summarizer',
      description: 'Summarizes text.',
      pipeline_id: pipeline.id,
      template: 'python-312',
      skills: [ECHO_SKILL, { id: 'sum', name: 'Sum', description: '', tags: [], input_schema: { type: 'object' } }],
      public: true,
      enabled: true,
      max_cost_per_task: 0.5,
      rate_limit_rpm: 30,
      version: 1,
      url: `${t.url}/a2a/${agent.id}`,
      created_at: expect.any(String),
      updated_at: agent.created_at,
    });
    expect(Date.parse(agent.created_at)).toBeGreaterThanOrEqual(before - 1000);

    const read = await t.request('GET', `/v1/a2a/agents/${agent.id}`, { token: key });
    expect(read.status).toBe(200);
    expect(read.body).toEqual(agent);
  });

  it('defaults: private, enabled, no cost limit, 60 tasks per minute, no template, empty description', async () => {
    const reply = await t.request('POST', '/v1/a2a/agents', { token: key, body: { name: 'minimal', pipeline_id: pipelineId, skills: [{ id: 's', name: 'S', input_schema: {} }] } });
    expect(reply.status, reply.text).toBe(201);
    expect(reply.body).toMatchObject({ description: '', template: null, public: false, enabled: true, max_cost_per_task: null, rate_limit_rpm: 60, version: 1 });
  });

  it("lists the account's agents under `agents` with id, name, enabled, public and skills", async () => {
    const other = (await t.signup()).key;
    const mine = await registerAgent(t.url, other, { public: true });
    const second = await registerAgent(t.url, other);
    await registerAgent(t.url, key);
    const reply = await t.request('GET', '/v1/a2a/agents', { token: other });
    expect(reply.status).toBe(200);
    expect(reply.body.agents.map((agent: any) => agent.id)).toEqual([mine.id, second.id]);
    expect(reply.body.agents[0]).toEqual(mine);
    expect(reply.body.agents[1]).toMatchObject({ id: second.id, name: second.name, enabled: true, public: false, skills: [ECHO_SKILL] });
  });

  it('PUT changes the fields sent, keeps the rest, bumps the version and answers the registration', async () => {
    const agent = await registerAgent(t.url, key, { max_cost_per_task: 1 });
    const otherPipeline = await createPipeline(t.url, key);
    const reply = await t.request('PUT', `/v1/a2a/agents/${agent.id}`, { token: key, body: { description: 'changed', enabled: false, max_cost_per_task: 2.5 } });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ ...agent, description: 'changed', enabled: false, max_cost_per_task: 2.5, version: 2, updated_at: expect.any(String) });
    expect(reply.body.updated_at >= agent.updated_at).toBe(true);

    const skills = [{ id: 'other', name: 'Other', description: 'd', tags: ['x'], input_schema: { type: 'object', properties: { n: { type: 'integer' } } } }];
    const more = await t.request('PUT', `/v1/a2a/agents/${agent.id}`, {
      token: key,
      body: { name: `renamed-${agent.id}`, pipeline_id: otherPipeline.id, template: 'node-22', skills, public: true, rate_limit_rpm: 5, max_cost_per_task: null },
    });
    expect(more.status, more.text).toBe(200);
    expect(more.body).toMatchObject({
      name: `renamed-${agent.id}`,
      pipeline_id: otherPipeline.id,
      template: 'node-22',
      skills,
      public: true,
      rate_limit_rpm: 5,
      max_cost_per_task: null,
      version: 3,
      description: 'changed',
      enabled: false,
    });
    expect((await t.request('GET', `/v1/a2a/agents/${agent.id}`, { token: key })).body).toEqual(more.body);
  });

  it('DELETE answers 204; the agent is then 404 agent_not_found on every route', async () => {
    const agent = await registerAgent(t.url, key);
    expect((await t.request('DELETE', `/v1/a2a/agents/${agent.id}`, { token: key })).status).toBe(204);
    expectError(await t.request('GET', `/v1/a2a/agents/${agent.id}`, { token: key }), 404, 'agent_not_found');
    expectError(await t.request('PUT', `/v1/a2a/agents/${agent.id}`, { token: key, body: { enabled: true } }), 404, 'agent_not_found');
    expectError(await t.request('DELETE', `/v1/a2a/agents/${agent.id}`, { token: key }), 404, 'agent_not_found');
    expect((await t.request('GET', '/v1/a2a/agents', { token: key })).body.agents.map((one: any) => one.id)).not.toContain(agent.id);
  });

  it("answers 404 agent_not_found for an unknown agent and for another account's agent", async () => {
    const agent = await registerAgent(t.url, key);
    const stranger = (await t.signup()).key;
    expectError(await t.request('GET', '/v1/a2a/agents/agt_nothing', { token: key }), 404, 'agent_not_found');
    expectError(await t.request('GET', `/v1/a2a/agents/${agent.id}`, { token: stranger }), 404, 'agent_not_found');
    expectError(await t.request('PUT', `/v1/a2a/agents/${agent.id}`, { token: stranger, body: { enabled: false } }), 404, 'agent_not_found');
    expectError(await t.request('DELETE', `/v1/a2a/agents/${agent.id}`, { token: stranger }), 404, 'agent_not_found');
    expect((await t.request('GET', `/v1/a2a/agents/${agent.id}`, { token: key })).body.enabled).toBe(true);
  });

  it("refuses an input_schema that does not compile, naming it and the compiler's complaint", async () => {
    const reply = await register({ skills: [ECHO_SKILL, { id: 'bad', name: 'Bad', input_schema: { type: 'object', properties: { n: { type: 'no-such-type' } } } }] });
    expectError(reply, 400, 'invalid_field', 'body.skills[1].input_schema');
    expect(reply.body.error.message).toMatch(/not a valid JSON Schema: .*type/);
    const unresolved = await register({ skills: [{ id: 'ref', name: 'Ref', input_schema: { $ref: 'https://example.com/schema.json' } }] });
    expectError(unresolved, 400, 'invalid_field', 'body.skills[0].input_schema');
    expectError(
      await t.request('PUT', `/v1/a2a/agents/${(await registerAgent(t.url, key)).id}`, { token: key, body: { skills: [{ id: 'x', name: 'X', input_schema: { minimum: 'one' } }] } }),
      400,
      'invalid_field',
      'body.skills[0].input_schema',
    );
  });

  it('reads schemas as draft 2020-12, or draft-07 when their $schema says so; another $schema is a 400', async () => {
    const draft07 = {
      $schema: 'http://json-schema.org/draft-07/schema#',
      type: 'object',
      definitions: { pair: { type: 'array', items: [{ type: 'string' }, { type: 'integer' }], additionalItems: false } },
      properties: { pair: { $ref: '#/definitions/pair' } },
    };
    const draft2020 = {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      $defs: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'integer' }], items: false } },
      properties: { pair: { $ref: '#/$defs/pair' } },
    };
    const registered = await registerAgent(t.url, key, {
      skills: [
        { id: 'old', name: 'Old', input_schema: draft07 },
        { id: 'new', name: 'New', input_schema: draft2020 },
      ],
    });
    const directory = t.services.a2a.agents;
    const agent = await directory.get(registered.account_id, registered.id);
    for (const skill of ['old', 'new']) {
      expect(() => directory.validateInput(agent, skill, { pair: ['a', 1] })).not.toThrow();
      expect(() => directory.validateInput(agent, skill, { pair: ['a', 1, 2] })).toThrow(expect.objectContaining({ code: 'invalid_input' }));
      expect(() => directory.validateInput(agent, skill, { pair: [1, 'a'] })).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    }
    const unknown = await register({ skills: [{ id: 'x', name: 'X', input_schema: { $schema: 'http://json-schema.org/draft-03/schema#', type: 'object' } }] });
    expectError(unknown, 400, 'invalid_field', 'body.skills[0].input_schema');
    expect(unknown.body.error.message).toContain('draft-03');
  });

  it('refuses an input_schema over 64 KiB, or nested more than 64 levels deep (even thousands: a 400, never a 500)', async () => {
    const huge = { type: 'object', description: 'x'.repeat(70 * 1024) };
    expectError(await register({ skills: [{ id: 'big', name: 'Big', input_schema: huge }] }), 400, 'invalid_field', 'body.skills[0].input_schema');
    const nested = (levels: number) => '{"items":'.repeat(levels) + '{"type":"string"}' + '}'.repeat(levels);
    const raw = (levels: number) => `{"name":"deep-${levels}","pipeline_id":"${pipelineId}","skills":[{"id":"d","name":"D","input_schema":${nested(levels)}}]}`;
    for (const levels of [64, 6000]) {
      const reply = await t.request('POST', '/v1/a2a/agents', { token: key, raw: raw(levels), contentType: 'application/json' });
      expectError(reply, 400, 'invalid_field', 'body.skills[0].input_schema');
      expect(reply.body.error.message).toContain('64 levels');
    }
    expect((await t.request('POST', '/v1/a2a/agents', { token: key, raw: raw(62), contentType: 'application/json' })).status).toBe(201);
  });

  it('refuses repeated skill ids, no skills, too many skills and bad skill ids', async () => {
    expectError(await register({ skills: [ECHO_SKILL, { ...ECHO_SKILL, name: 'again' }] }), 400, 'invalid_field', 'body.skills[1].id');
    expectError(await register({ skills: [] }), 400, 'invalid_field', 'body.skills');
    const many = Array.from({ length: 21 }, (_, i) => ({ ...ECHO_SKILL, id: `s${i}` }));
    expectError(await register({ skills: many }), 400, 'invalid_field', 'body.skills');
    expectError(await register({ skills: [{ ...ECHO_SKILL, id: 'has space' }] }), 400, 'invalid_field', 'body.skills.0.id');
    expectError(await register({ skills: [{ ...ECHO_SKILL, input_schema: 'string' }] }), 400, 'invalid_field', 'body.skills.0.input_schema');
  });

  it('refuses bad limits, unknown fields and missing required fields', async () => {
    expectError(await register({ max_cost_per_task: 0 }), 400, 'invalid_field', 'body.max_cost_per_task');
    expectError(await register({ max_cost_per_task: -1 }), 400, 'invalid_field', 'body.max_cost_per_task');
    expectError(await register({ rate_limit_rpm: 0 }), 400, 'invalid_field', 'body.rate_limit_rpm');
    expectError(await register({ rate_limit_rpm: 10_001 }), 400, 'invalid_field', 'body.rate_limit_rpm');
    expectError(await register({ rate_limit_rpm: 1.5 }), 400, 'invalid_field', 'body.rate_limit_rpm');
    expectError(await register({ enabled: false }), 400, 'invalid_field', 'body.enabled');
    expectError(await register({ name: '' }), 400, 'invalid_field', 'body.name');
    expectError(await register({ template: 'cobol-85' }), 400, 'invalid_field', 'body.template');
    expectError(await t.request('POST', '/v1/a2a/agents', { token: key, body: { name: 'x', skills: [ECHO_SKILL] } }), 400, 'invalid_field', 'body.pipeline_id');
    const agent = await registerAgent(t.url, key);
    expectError(await t.request('PUT', `/v1/a2a/agents/${agent.id}`, { token: key, body: {} }), 400, 'invalid_field', 'body');
    expectError(await t.request('PUT', `/v1/a2a/agents/${agent.id}`, { token: key, body: { template: 'cobol-85' } }), 400, 'invalid_field', 'body.template');
    expectError(await t.request('PUT', `/v1/a2a/agents/${agent.id}`, { token: key, body: { version: 7 } }), 400, 'invalid_field', 'body.version');
    expectError(await t.request('PUT', `/v1/a2a/agents/${agent.id}`, { token: key, body: { max_cost_per_task: 0 } }), 400, 'invalid_field', 'body.max_cost_per_task');
  });

  it("refuses an unknown pipeline, another account's pipeline (404 naming body.pipeline_id) and an archived one (409)", async () => {
    expectError(await register({ pipeline_id: 'pip_nothing' }), 404, 'not_found', 'body.pipeline_id');
    const stranger = (await t.signup()).key;
    const theirs = await createPipeline(t.url, stranger);
    expectError(await register({ pipeline_id: theirs.id }), 404, 'not_found', 'body.pipeline_id');
    const archived = await createPipeline(t.url, key);
    expect((await t.request('DELETE', `/v1/pipelines/${archived.id}`, { token: key })).status).toBe(204);
    expectError(await register({ pipeline_id: archived.id }), 409, 'conflict', 'body.pipeline_id');
    const agent = await registerAgent(t.url, key);
    expectError(await t.request('PUT', `/v1/a2a/agents/${agent.id}`, { token: key, body: { pipeline_id: theirs.id } }), 404, 'not_found', 'body.pipeline_id');
    expectError(await t.request('PUT', `/v1/a2a/agents/${agent.id}`, { token: key, body: { pipeline_id: archived.id } }), 409, 'conflict', 'body.pipeline_id');
    expect((await t.request('GET', `/v1/a2a/agents/${agent.id}`, { token: key })).body).toMatchObject({ pipeline_id: agent.pipeline_id, version: 1 });
  });

  it('refuses a name already taken in the account with 409 already_exists, on register and on rename; other accounts may use it', async () => {
    const first = await registerAgent(t.url, key, { name: 'taken' });
    expectError(await register({ name: 'taken' }), 409, 'already_exists', 'body.name');
    const second = await registerAgent(t.url, key);
    expectError(await t.request('PUT', `/v1/a2a/agents/${second.id}`, { token: key, body: { name: 'taken' } }), 409, 'already_exists', 'body.name');
    expect((await t.request('PUT', `/v1/a2a/agents/${first.id}`, { token: key, body: { name: 'taken' } })).status).toBe(200);
    await registerAgent(t.url, (await t.signup()).key, { name: 'taken' });
  });

  it('refuses the 101st agent of an account with 403 quota_exceeded', async () => {
    const owner = (await t.signup()).key;
    const pipeline = (await createPipeline(t.url, owner)).id;
    for (let i = 0; i < 100; i++) expect((await register({ name: `q${i}`, pipeline_id: pipeline }, owner)).status).toBe(201);
    const refused = await register({ name: 'q100', pipeline_id: pipeline }, owner);
    expectError(refused, 403, 'quota_exceeded');
    expect(refused.body.error.message).toContain('100 agents');
    expect((await t.request('GET', '/v1/a2a/agents', { token: owner })).body.agents).toHaveLength(100);
  });

  it('only full-scope keys reach the registry: sandbox and read keys get 403, no key 401', async () => {
    const agent = await registerAgent(t.url, key);
    for (const scope of ['sandbox', 'read']) {
      const scoped = (await t.request('POST', '/v1/account/keys', { token: key, body: { name: scope, scope } })).body.key;
      expectError(await register({}, scoped), 403, 'scope_denied');
      expectError(await t.request('GET', '/v1/a2a/agents', { token: scoped }), 403, 'scope_denied');
      expectError(await t.request('GET', `/v1/a2a/agents/${agent.id}`, { token: scoped }), 403, 'scope_denied');
      expectError(await t.request('PUT', `/v1/a2a/agents/${agent.id}`, { token: scoped, body: { enabled: false } }), 403, 'scope_denied');
      expectError(await t.request('DELETE', `/v1/a2a/agents/${agent.id}`, { token: scoped }), 403, 'scope_denied');
    }
    expectError(await t.request('GET', '/v1/a2a/agents'), 401, 'unauthorized');
    expect((await t.request('GET', `/v1/a2a/agents/${agent.id}`, { token: key })).body.enabled).toBe(true);
  });

  it('answers the agent-delegation error body for malformed JSON too', async () => {
    const reply = await t.request('POST', '/v1/a2a/agents', { token: key, raw: '{"name":', contentType: 'application/json' });
    expectError(reply, 400, 'invalid_json');
  });

  it('validates task input against the skill schema through the AgentDirectory (skill_not_found, invalid_input)', async () => {
    const registered = await registerAgent(t.url, key);
    const directory = t.services.a2a.agents;
    const agent = await directory.get(registered.account_id, registered.id);
    expect(() => directory.validateInput(agent, 'echo', { query: 'hi' })).not.toThrow();
    expect(() => directory.validateInput(agent, 'nope', { query: 'hi' })).toThrow(expect.objectContaining({ statusCode: 400, code: 'skill_not_found' }));
    let refusal: any;
    try {
      directory.validateInput(agent, 'echo', { query: 3 });
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toMatchObject({ statusCode: 400, code: 'invalid_input', details: { errors: [{ path: '/query', message: 'must be string' }] } });
    await t.request('PUT', `/v1/a2a/agents/${registered.id}`, { token: key, body: { skills: [{ ...ECHO_SKILL, input_schema: { type: 'object', properties: { query: { type: 'integer' } } } }] } });
    const changed = await directory.get(registered.account_id, registered.id);
    expect(() => directory.validateInput(changed, 'echo', { query: 3 })).not.toThrow();
    expect(() => directory.validateInput(agent, 'echo', { query: 3 })).toThrow(expect.objectContaining({ code: 'invalid_input' }));
    await expect(directory.get(registered.account_id, 'agt_nothing')).rejects.toMatchObject({ statusCode: 404, code: 'agent_not_found' });
  });
});

describe('agent-delegation error body for requests refused before routing', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp('sqlite');
  });
  afterAll(async () => {
    await t?.close();
  });

  async function raw(head: string): Promise<{ status: number; body: any }> {
    const { port } = new URL(t.url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(port), '127.0.0.1', () => socket.end(Buffer.from(head, 'latin1')));
      let text = '';
      socket.on('data', (chunk) => (text += chunk.toString('utf8')));
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
    const [statusLine] = answer.split('\r\n');
    // The body may come chunked: the JSON object is the one brace-delimited part of it.
    return { status: Number(statusLine.split(' ')[1]), body: JSON.parse(/\{.*\}/s.exec(answer.slice(answer.indexOf('\r\n\r\n') + 4))![0]) };
  }

  it('answers {error:{code,message,details}} to a malformed request line or several Host headers on /v1/a2a and /.well-known/agent', async () => {
    const malformed = await raw('GET /v1/a2a/agents/\x7f\x01bad HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(malformed.status).toBe(400);
    expect(malformed.body).toEqual({ error: { code: 'malformed_request', message: expect.any(String), details: {} } });
    const twoHosts = await raw('GET /.well-known/agent.json HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n');
    expect(twoHosts.status).toBe(400);
    expect(twoHosts.body).toEqual({ error: { code: 'malformed_request', message: 'the request has more than one Host header', details: {} } });
    // Elsewhere the general body stays.
    expect((await raw('GET /v1/sandboxes/\x7f\x01bad HTTP/1.1\r\nHost: x\r\n\r\n')).body).toMatchObject({ error: expect.any(String), code: 'malformed_request' });
  });
});
