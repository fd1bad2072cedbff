// POST /v1/events/ingest: per-event validation, the request limits, account scoping and idempotency,
// against SQLite and PostgreSQL.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { event, ingest, seedSandbox, tenant } from '../helpers/sessions.js';

const HOUR_MS = 3600_000;
const iso = (offsetMs: number) => new Date(Date.now() + offsetMs).toISOString();

describe.each(BACKENDS)('event ingest on %s', (backend) => {
  let t: TestApp;
  let key: string;
  let accountId: string;
  let sandboxId: string;

  const storedEvents = async (sessionId: string) => {
    const reply = await t.request('GET', `/v1/sessions/${sessionId}/replay?limit=1000`, { token: key });
    return reply.status === 404 ? [] : reply.body.events;
  };

  beforeAll(async () => {
    t = await startApp(backend);
    ({ key, accountId, sandboxId } = await tenant(t));
  });
  afterAll(async () => {
    await t?.close();
  });

  it('stores a valid batch and answers {accepted, errors}', async () => {
    const reply = await ingest(t, key, [
      event(sandboxId, 'ok-1', 'lifecycle', { status: 'started' }, { meta: { agent_type: 'coder' } }),
      event(sandboxId, 'ok-1', 'llm_call', { model: 'gpt-4o', provider: 'openai', tokens_in: 10, tokens_out: 5, cost_usd: 0.01 }),
      event(sandboxId, 'ok-1', 'tool_call', { name: 'search' }),
    ]);
    expect(reply.status).toBe(200);
    expect(reply.body).toEqual({ accepted: 3, errors: 0, duplicates: 0, details: [] });
    const events = await storedEvents('ok-1');
    expect(events.map((e: any) => [e.sequence, e.type])).toEqual([
      [1, 'lifecycle'],
      [2, 'llm_call'],
      [3, 'tool_call'],
    ]);
    expect(events[0].id).toMatch(/^[0-9a-f-]{36}$/);
    expect(events[0].meta).toEqual({ agent_type: 'coder' });
    expect(events[1].data).toEqual({ model: 'gpt-4o', provider: 'openai', tokens_in: 10, tokens_out: 5, cost_usd: 0.01 });
  });

  const BAD_EVENTS: [string, unknown, RegExp][] = [
    ['not an object', 'hello', /event must be an object/],
    ['an array', [1, 2], /event must be an object/],
    ['missing session_id', { sandbox_id: 'S', type: 'error', timestamp: 'NOW' }, /session_id is required/],
    ['missing sandbox_id', { session_id: 'x', type: 'error', timestamp: 'NOW' }, /sandbox_id is required/],
    ['missing type', { session_id: 'x', sandbox_id: 'S', timestamp: 'NOW' }, /type is required/],
    ['missing timestamp', { session_id: 'x', sandbox_id: 'S', type: 'error' }, /timestamp is required/],
    ['session_id as number', { session_id: 42, sandbox_id: 'S', type: 'error', timestamp: 'NOW' }, /session_id must be/],
    ['session_id with a slash', { session_id: 'a/b', sandbox_id: 'S', type: 'error', timestamp: 'NOW' }, /session_id must be/],
    ['session_id too long', { session_id: 'x'.repeat(129), sandbox_id: 'S', type: 'error', timestamp: 'NOW' }, /session_id must be/],
    ['unknown type', { session_id: 'x', sandbox_id: 'S', type: 'llm', timestamp: 'NOW' }, /type must be one of: llm_call, tool_call/],
    ['type as number', { session_id: 'x', sandbox_id: 'S', type: 3, timestamp: 'NOW' }, /type must be one of/],
    ['timestamp as number', { session_id: 'x', sandbox_id: 'S', type: 'error', timestamp: Date.now() }, /timestamp is required: an ISO 8601/],
    ['timestamp in words', { session_id: 'x', sandbox_id: 'S', type: 'error', timestamp: 'yesterday' }, /timestamp must be an ISO 8601 time/],
    ['timestamp without a zone', { session_id: 'x', sandbox_id: 'S', type: 'error', timestamp: '2025-01-01T00:00:00' }, /timestamp must be an ISO 8601 time with a zone/],
    ['impossible date', { session_id: 'x', sandbox_id: 'S', type: 'error', timestamp: '2025-13-45T00:00:00Z' }, /timestamp is not a valid date/],
    ['future timestamp', { session_id: 'x', sandbox_id: 'S', type: 'error', timestamp: iso(HOUR_MS) }, /in the future; at most 5 minutes/],
    ['ancient timestamp', { session_id: 'x', sandbox_id: 'S', type: 'error', timestamp: '1970-01-01T00:00:00Z' }, /old; events older than 30 days/],
    ['31 days old', { session_id: 'x', sandbox_id: 'S', type: 'error', timestamp: iso(-31 * 24 * HOUR_MS) }, /older than 30 days/],
    ['meta as string', { session_id: 'x', sandbox_id: 'S', type: 'error', timestamp: 'NOW', meta: 'm' }, /meta must be an object/],
    ['payload as array', { session_id: 'x', sandbox_id: 'S', type: 'error', timestamp: 'NOW', payload: [] }, /payload must be an object/],
    ['payload null', { session_id: 'x', sandbox_id: 'S', type: 'error', timestamp: 'NOW', payload: null }, /payload must be an object/],
    ['negative tokens', { session_id: 'x', sandbox_id: 'S', type: 'llm_call', timestamp: 'NOW', payload: { tokens_in: -1 } }, /payload.tokens_in must be an integer/],
    ['fractional tokens', { session_id: 'x', sandbox_id: 'S', type: 'llm_call', timestamp: 'NOW', payload: { tokens_out: 1.5 } }, /payload.tokens_out must be an integer/],
    ['cost as string', { session_id: 'x', sandbox_id: 'S', type: 'llm_call', timestamp: 'NOW', payload: { cost_usd: '0.1' } }, /payload.cost_usd must be a number/],
    ['negative cost', { session_id: 'x', sandbox_id: 'S', type: 'llm_call', timestamp: 'NOW', payload: { cost_usd: -0.1 } }, /payload.cost_usd must be a number/],
    ['model with a NUL', { session_id: 'x', sandbox_id: 'S', type: 'llm_call', timestamp: 'NOW', payload: { model: 'gpt\u0000' } }, /payload.model must be a name/],
    ['exit_code as string', { session_id: 'x', sandbox_id: 'S', type: 'command', timestamp: 'NOW', payload: { command: 'ls', exit_code: '0' } }, /payload.exit_code must be an integer/],
    ['allowed as string', { session_id: 'x', sandbox_id: 'S', type: 'network', timestamp: 'NOW', payload: { allowed: 'no' } }, /payload.allowed must be a boolean/],
    ['unknown lifecycle status', { session_id: 'x', sandbox_id: 'S', type: 'lifecycle', timestamp: 'NOW', payload: { status: 'done' } }, /payload.status must be one of: started, completed, failed/],
    ['unknown field', { session_id: 'x', sandbox_id: 'S', type: 'error', timestamp: 'NOW', account_id: 'acc_x' }, /account_id is not a known field/],
    ['id not a UUID', { id: 'evt-1', session_id: 'x', sandbox_id: 'S', type: 'error', timestamp: 'NOW' }, /id must be a UUID/],
    ['sandbox_id with spaces', { session_id: 'x', sandbox_id: 'sbx 1', type: 'error', timestamp: 'NOW' }, /sandbox_id must be a sandbox id/],
  ];

  it('refuses each bad event by index with a reason naming the field, and stores the good ones', async () => {
    const good = event(sandboxId, 'mixed', 'error', { message: 'kept' });
    const batch = BAD_EVENTS.map(([, raw]) => {
      if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return raw;
      const filled: Record<string, unknown> = { ...raw };
      if (filled.sandbox_id === 'S') filled.sandbox_id = sandboxId;
      if (filled.timestamp === 'NOW') filled.timestamp = new Date().toISOString();
      return filled;
    });
    const reply = await ingest(t, key, [good, ...batch, good]);
    expect(reply.status).toBe(200);
    expect(reply.body.accepted).toBe(2);
    expect(reply.body.errors).toBe(BAD_EVENTS.length);
    expect(reply.body.details.map((d: any) => d.index)).toEqual(BAD_EVENTS.map((_, i) => i + 1));
    BAD_EVENTS.forEach(([name, , reason], i) => expect(reply.body.details[i].reason, name).toMatch(reason));
    expect((await storedEvents('mixed')).map((e: any) => e.sequence)).toEqual([1, 2]);
    expect((await storedEvents('x')).length).toBe(0);
  });

  it('accepts a timestamp a little in the future (clock skew)', async () => {
    const reply = await ingest(t, key, [{ ...event(sandboxId, 'skew', 'error'), timestamp: iso(2 * 60_000) }]);
    expect(reply.body).toMatchObject({ accepted: 1, errors: 0 });
  });

  it('answers 400 naming the limit for 1001 events, and stores none', async () => {
    const events = Array.from({ length: 1001 }, () => event(sandboxId, 'too-many', 'tool_call'));
    const reply = await ingest(t, key, events);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatch(/body\.events holds 1001 events; the limit is 1000/);
    expect(await storedEvents('too-many')).toEqual([]);
  });

  it('accepts exactly 1000 events', async () => {
    const reply = await ingest(
      t,
      key,
      Array.from({ length: 1000 }, () => event(sandboxId, 'thousand', 'tool_call')),
    );
    expect(reply.body).toMatchObject({ accepted: 1000, errors: 0 });
  });

  it('answers 413 naming the 4 MiB limit for a 5 MB body', async () => {
    const big = 'x'.repeat(5_000);
    const events = Array.from({ length: 1000 }, () => event(sandboxId, 'huge', 'tool_call', { output: big }));
    const reply = await ingest(t, key, events);
    expect(reply.status).toBe(413);
    expect(reply.body.error).toMatch(/4 MiB/);
    expect(await storedEvents('huge')).toEqual([]);
  });

  it('accepts a body above the 1 MiB default but under 4 MiB', async () => {
    const events = Array.from({ length: 500 }, () => event(sandboxId, 'large', 'tool_call', { output: 'y'.repeat(7_000) }));
    const reply = await ingest(t, key, events);
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({ accepted: 500, errors: 0 });
  });

  it.each([
    ['events missing', {}],
    ['events not an array', { events: { a: 1 } }],
    ['an unknown top-level field', { events: [], account_id: 'acc_x' }],
  ])('answers 400 for a body with %s', async (_name, body) => {
    const reply = await t.request('POST', '/v1/events/ingest', { token: key, body });
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatch(/body\./);
  });

  it('answers 400 for malformed JSON', async () => {
    const reply = await t.request('POST', '/v1/events/ingest', { token: key, raw: '{"events": [' });
    expect(reply.status).toBe(400);
  });

  it("refuses events naming another account's sandbox or an unknown one, per event", async () => {
    const other = await tenant(t);
    const reply = await ingest(t, key, [event(other.sandboxId, 'theirs', 'error'), event('sbx_doesnotexist', 'theirs', 'error'), event(sandboxId, 'mine', 'error')]);
    expect(reply.body).toMatchObject({ accepted: 1, errors: 2 });
    expect(reply.body.details).toEqual([
      { index: 0, reason: `sandbox_id ${other.sandboxId} is not a sandbox of this account` },
      { index: 1, reason: 'sandbox_id sbx_doesnotexist is not a sandbox of this account' },
    ]);
    expect((await t.request('GET', '/v1/sessions/theirs', { token: other.key })).status).toBe(404);
    expect((await t.request('GET', `/v1/sandboxes/${other.sandboxId}/sessions`, { token: other.key })).body).toEqual([]);
  });

  it('keeps a session bound to the sandbox of its first event', async () => {
    const second = await seedSandbox(t, accountId);
    const reply = await ingest(t, key, [event(sandboxId, 'bound', 'tool_call'), event(second, 'bound', 'tool_call')]);
    expect(reply.body.details).toEqual([{ index: 1, reason: `session bound belongs to sandbox ${sandboxId}, not ${second}` }]);
    const later = await ingest(t, key, [event(second, 'bound', 'tool_call')]);
    expect(later.body.errors).toBe(1);
    expect((await t.request('GET', '/v1/sessions/bound', { token: key })).body).toMatchObject({ sandbox_id: sandboxId, event_count: 1 });
  });

  it('gives two accounts using the same session id separate sessions', async () => {
    const other = await tenant(t);
    await ingest(t, key, [event(sandboxId, 'shared-name', 'tool_call')]);
    await ingest(t, other.key, [event(other.sandboxId, 'shared-name', 'error'), event(other.sandboxId, 'shared-name', 'error')]);
    expect((await t.request('GET', '/v1/sessions/shared-name', { token: key })).body).toMatchObject({ sandbox_id: sandboxId, event_count: 1 });
    expect((await t.request('GET', '/v1/sessions/shared-name', { token: other.key })).body).toMatchObject({ sandbox_id: other.sandboxId, event_count: 2 });
  });

  it('stores an event with a client id once, across requests and within a batch', async () => {
    const id = randomUUID();
    const first = await ingest(t, key, [event(sandboxId, 'idem', 'tool_call', { n: 1 }, { id })]);
    expect(first.body).toEqual({ accepted: 1, errors: 0, duplicates: 0, details: [] });
    const retry = await ingest(t, key, [event(sandboxId, 'idem', 'tool_call', { n: 1 }, { id }), event(sandboxId, 'idem', 'tool_call', { n: 2 })]);
    expect(retry.body).toEqual({ accepted: 2, errors: 0, duplicates: 1, details: [] });
    const twice = randomUUID();
    const within = await ingest(t, key, [event(sandboxId, 'idem', 'error', {}, { id: twice }), event(sandboxId, 'idem', 'error', {}, { id: twice.toUpperCase() })]);
    expect(within.body).toMatchObject({ accepted: 2, duplicates: 1 });
    const events = await storedEvents('idem');
    expect(events.map((e: any) => [e.sequence, e.id])).toEqual([
      [1, id],
      [2, expect.any(String)],
      [3, twice],
    ]);
    expect((await t.request('GET', '/v1/sessions/idem', { token: key })).body.event_count).toBe(3);
  });

  it('needs a full-scope key: read and sandbox keys get 403, no key 401', async () => {
    for (const scope of ['read', 'sandbox']) {
      const minted = await t.request('POST', '/v1/account/keys', { token: key, body: { name: scope, scope } });
      const reply = await ingest(t, minted.body.key, [event(sandboxId, 'scoped', 'error')]);
      expect(reply.status, scope).toBe(403);
    }
    expect((await t.request('POST', '/v1/events/ingest', { body: { events: [] } })).status).toBe(401);
    expect(await storedEvents('scoped')).toEqual([]);
  });
});
