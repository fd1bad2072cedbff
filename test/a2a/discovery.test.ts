// Open agent discovery through the real HTTP API, on every backend: the list of public, enabled cards
// with every spec field, one card, private and disabled cards only for their own account's full key,
// the per-IP rate limit, and the public base URL the cards advertise.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { ECHO_SKILL, registerAgent } from '../helpers/a2a.js';

function expectedCard(agent: any, base: string, organization: string) {
  return {
    name: agent.name,
    description: agent.description,
    url: `${base}/a2a/${agent.id}`,
    version: String(agent.version),
    capabilities: { streaming: true, push: true },
    input_modes: ['text', 'json', 'file'],
    output_modes: ['text', 'json', 'file'],
    skills: agent.skills.map((skill: any) => ({ id: skill.id, name: skill.name, description: skill.description, tags: skill.tags })),
    authentication: { type: 'bearer', schemes: ['api_key'] },
    provider: { name: 'Paddock', organization, url: base },
  };
}

describe.each(BACKENDS)('agent discovery on %s', (backend) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startApp(backend);
    key = (await t.signup({ name: 'Acme Research' })).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  const card = (agentId: string, token?: string) => t.request('GET', `/.well-known/agent/${agentId}.json`, { token });

  it('lists the cards of public, enabled agents only, with protocol_version and every card field', async () => {
    const listed = await registerAgent(t.url, key, {
      public: true,
      description: 'Listed.',
      skills: [ECHO_SKILL, { id: 'two', name: 'Two', description: 'Second.', tags: ['a', 'b'], input_schema: {} }],
    });
    const other = await registerAgent(t.url, (await t.signup()).key, { public: true });
    const privateAgent = await registerAgent(t.url, key);
    const disabled = await registerAgent(t.url, key, { public: true });
    expect((await t.request('PUT', `/v1/a2a/agents/${disabled.id}`, { token: key, body: { enabled: false } })).status).toBe(200);

    const reply = await t.request('GET', '/.well-known/agent.json');
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body.protocol_version).toBe('1.0');
    const urls = reply.body.agents.map((one: any) => one.url);
    expect(urls).toContain(`${t.url}/a2a/${listed.id}`);
    expect(urls).toContain(`${t.url}/a2a/${other.id}`);
    expect(urls).not.toContain(`${t.url}/a2a/${privateAgent.id}`);
    expect(urls).not.toContain(`${t.url}/a2a/${disabled.id}`);
    expect(reply.body.agents.find((one: any) => one.url.endsWith(listed.id))).toEqual(expectedCard(listed, t.url, 'Acme Research'));
    expect(reply.body.agents.find((one: any) => one.url.endsWith(other.id)).provider.organization).toBe('');

    // Even the owner's key does not list private agents.
    const withKey = await t.request('GET', '/.well-known/agent.json', { token: key });
    expect(withKey.body.agents.map((one: any) => one.url)).not.toContain(`${t.url}/a2a/${privateAgent.id}`);
  });

  it("answers one public agent's card without a key, its version following the registration's", async () => {
    const agent = await registerAgent(t.url, key, { public: true });
    const reply = await card(agent.id);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual(expectedCard(agent, t.url, 'Acme Research'));
    const changed = await t.request('PUT', `/v1/a2a/agents/${agent.id}`, { token: key, body: { description: 'Now better.' } });
    expect((await card(agent.id)).body).toMatchObject({ version: '2', description: 'Now better.' });
    expect(changed.body.version).toBe(2);
  });

  it("answers a private or disabled agent's card only to a full key of its own account", async () => {
    const privateAgent = await registerAgent(t.url, key);
    const disabled = await registerAgent(t.url, key, { public: true });
    await t.request('PUT', `/v1/a2a/agents/${disabled.id}`, { token: key, body: { enabled: false } });
    const stranger = (await t.signup()).key;
    const readKey = (await t.request('POST', '/v1/account/keys', { token: key, body: { name: 'reader', scope: 'read' } })).body.key;
    for (const agent of [privateAgent, disabled]) {
      for (const token of [undefined, stranger, readKey, 'svc_sk_invalid']) {
        const reply = await card(agent.id, token);
        expect(reply.status, reply.text).toBe(404);
        expect(reply.body.error).toMatchObject({ code: 'agent_not_found', message: expect.any(String), details: {} });
      }
      const owner = await card(agent.id, key);
      expect(owner.status, owner.text).toBe(200);
      expect(owner.body.url).toBe(`${t.url}/a2a/${agent.id}`);
    }
  });

  it('answers 404 agent_not_found for an unknown or deleted agent', async () => {
    const agent = await registerAgent(t.url, key, { public: true });
    await t.request('DELETE', `/v1/a2a/agents/${agent.id}`, { token: key });
    for (const id of [agent.id, 'agt_nothing']) {
      const reply = await card(id, key);
      expect(reply.status).toBe(404);
      expect(reply.body.error.code).toBe('agent_not_found');
    }
    expect((await t.request('GET', '/.well-known/agent.json')).body.agents.map((one: any) => one.url)).not.toContain(`${t.url}/a2a/${agent.id}`);
  });
});

describe.each(BACKENDS)('agent discovery limits and public URL on %s', (backend) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp(backend, { PADDOCK_RATE_LIMIT_DISCOVERY: '4', PADDOCK_PUBLIC_URL: 'https://paddock.example.com/' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('advertises PADDOCK_PUBLIC_URL, then limits discovery per client IP with 429 rate_limited and the rate-limit headers', async () => {
    const key = (await t.signup()).key;
    const agent = await registerAgent(t.url, key, { public: true });
    expect(agent.url).toBe(`https://paddock.example.com/a2a/${agent.id}`);

    const first = await t.request('GET', `/.well-known/agent/${agent.id}.json`);
    expect(first.status, first.text).toBe(200);
    expect(first.body.url).toBe(`https://paddock.example.com/a2a/${agent.id}`);
    expect(first.body.provider.url).toBe('https://paddock.example.com');
    expect(first.headers.get('x-ratelimit-limit')).toBe('4');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('3');

    // A key does not lift the per-IP limit of the open routes.
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await t.request('GET', '/.well-known/agent.json', { token: key })).status);
    expect(statuses).toEqual([200, 200, 200]);
    const refused = await t.request('GET', `/.well-known/agent/${agent.id}.json`);
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'rate_limited', message: expect.stringContaining('4 requests per minute') });
    expect(refused.headers.get('x-ratelimit-limit')).toBe('4');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(refused.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000 - 1);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await t.request('GET', '/.well-known/agent.json')).status).toBe(429);

    // The key's own routes count against its plan, not this limit.
    expect((await t.request('GET', `/v1/a2a/agents/${agent.id}`, { token: key })).status).toBe(200);
  });
});
