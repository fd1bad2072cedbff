// Sessions: totals, cost (as sent, from the price table, from an operator price file), status by
// lifecycle events and by inactivity, listing per sandbox and account scoping, on SQLite and PostgreSQL.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { event, ingest, seedSandbox, tenant } from '../helpers/sessions.js';
import { waitFor } from '../helpers/wait-for.js';

const at = (secondsAgo: number) => new Date(Date.now() - secondsAgo * 1000).toISOString();

describe.each(BACKENDS)('sessions on %s', (backend) => {
  let t: TestApp;
  let key: string;
  let accountId: string;
  let sandboxId: string;
  const session = async (id: string, token = key) => t.request('GET', `/v1/sessions/${id}`, { token });

  beforeAll(async () => {
    t = await startApp(backend);
    ({ key, accountId, sandboxId } = await tenant(t));
  });
  afterAll(async () => {
    await t?.close();
  });

  it('is created by its first event and sums tokens, events, time and cost', async () => {
    const first = at(60);
    const reply = await ingest(t, key, [
      { ...event(sandboxId, 'agg', 'lifecycle', { status: 'started' }, { meta: { agent_type: 'coder' } }), timestamp: first },
      { ...event(sandboxId, 'agg', 'llm_call', { model: 'claude-3-5-sonnet-20241022', tokens_in: 2000, tokens_out: 1000 }), timestamp: at(50) },
      { ...event(sandboxId, 'agg', 'llm_call', { model: 'gpt-4o-2024-08-06', tokens_in: 1000, tokens_out: 500, cost_usd: 0.5 }), timestamp: at(40) },
      { ...event(sandboxId, 'agg', 'tool_call', { name: 'grep' }), timestamp: at(30) },
    ]);
    expect(reply.body.accepted).toBe(4);
    const body = (await session('agg')).body;
    expect(body).toMatchObject({
      id: 'agg',
      sandbox_id: sandboxId,
      status: 'active',
      agent_type: 'coder',
      model: 'claude-3-5-sonnet-20241022',
      tokens_in: 3000,
      tokens_out: 1500,
      event_count: 4,
      trust_score: 100,
      ended_at: null,
      compute_cost_usd: 0,
    });
    // 2000 × $3/M + 1000 × $15/M from the table, plus 0.5 as sent
    expect(body.llm_cost_usd).toBeCloseTo(0.021 + 0.5, 10);
    expect(body.cost_usd).toBeCloseTo(body.llm_cost_usd + body.compute_cost_usd, 10);
    expect(body.started_at).toBe(first);
    expect(body.duration_ms).toBe(Date.parse(body.last_event_at) - Date.parse(first));
    expect(body.duration_ms).toBeGreaterThanOrEqual(29_000);
  });

  it('shows the cost of each llm_call in the replay: as sent, priced, or absent for an unknown model', async () => {
    await ingest(t, key, [
      event(sandboxId, 'costs', 'llm_call', { model: 'gpt-4o-mini', tokens_in: 1_000_000, tokens_out: 1_000_000 }),
      event(sandboxId, 'costs', 'llm_call', { model: 'openai/gpt-4o', tokens_in: 1_000_000, tokens_out: 0 }),
      event(sandboxId, 'costs', 'llm_call', { model: 'us.anthropic.claude-3-5-haiku-20241022-v1:0', tokens_in: 1_000_000, tokens_out: 0 }),
      event(sandboxId, 'costs', 'llm_call', { model: 'homegrown-7b', tokens_in: 5000, tokens_out: 5000 }),
      event(sandboxId, 'costs', 'llm_call', { model: 'homegrown-7b', cost_usd: 0.25 }),
    ]);
    const events = (await t.request('GET', '/v1/sessions/costs/replay', { token: key })).body.events;
    expect(events.map((e: any) => e.cost_usd)).toEqual([0.75, 2.5, 0.8, undefined, 0.25]);
    expect((await session('costs')).body.cost_usd).toBeCloseTo(0.75 + 2.5 + 0.8 + 0.25, 10);
  });

  it('completes or fails by lifecycle events, and keeps recording later events', async () => {
    const end = at(5);
    await ingest(t, key, [event(sandboxId, 'done', 'tool_call'), { ...event(sandboxId, 'done', 'lifecycle', { status: 'completed' }), timestamp: end }]);
    expect((await session('done')).body).toMatchObject({ status: 'completed', ended_at: end });
    await ingest(t, key, [event(sandboxId, 'done', 'lifecycle', { status: 'failed' }), event(sandboxId, 'done', 'error', { message: 'late' })]);
    expect((await session('done')).body).toMatchObject({ status: 'completed', ended_at: end, event_count: 4 });

    await ingest(t, key, [event(sandboxId, 'broken', 'lifecycle', { status: 'failed' })]);
    expect((await session('broken')).body.status).toBe('failed');
  });

  it("lists a sandbox's sessions newest first, filtered by status, and 404s for unknown or foreign sandboxes", async () => {
    const own = await seedSandbox(t, accountId);
    await ingest(t, key, [event(own, 'list-a', 'tool_call')]);
    await ingest(t, key, [event(own, 'list-b', 'tool_call'), event(own, 'list-b', 'lifecycle', { status: 'completed' })]);
    const all = await t.request('GET', `/v1/sandboxes/${own}/sessions`, { token: key });
    expect(all.status).toBe(200);
    expect(all.body.map((s: any) => s.id)).toEqual(['list-b', 'list-a']);
    expect(all.body[0]).toMatchObject({ sandbox_id: own, status: 'completed', event_count: 2, trust_score: 100 });
    const active = await t.request('GET', `/v1/sandboxes/${own}/sessions?status=active`, { token: key });
    expect(active.body.map((s: any) => s.id)).toEqual(['list-a']);
    expect((await t.request('GET', `/v1/sandboxes/${own}/sessions?limit=1&offset=1`, { token: key })).body.map((s: any) => s.id)).toEqual(['list-a']);
    expect((await t.request('GET', `/v1/sandboxes/${own}/sessions?limit=0`, { token: key })).status).toBe(400);
    expect((await t.request('GET', `/v1/sandboxes/${own}/sessions?status=running`, { token: key })).status).toBe(400);
    expect((await t.request('GET', '/v1/sandboxes/sbx_unknown/sessions', { token: key })).status).toBe(404);
    const other = await tenant(t);
    expect((await t.request('GET', `/v1/sandboxes/${own}/sessions`, { token: other.key })).status).toBe(404);
  });

  it("answers 404 for an unknown session and for another account's", async () => {
    await ingest(t, key, [event(sandboxId, 'private', 'tool_call')]);
    const other = await tenant(t);
    for (const suffix of ['', '/replay', '/replay/summary']) {
      expect((await t.request('GET', `/v1/sessions/private${suffix}`, { token: other.key })).status).toBe(404);
      const unknown = await t.request('GET', `/v1/sessions/no-such-session${suffix}`, { token: key });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ error: 'session not found', code: 'not_found' });
    }
  });

  it('puts concurrent command recordings of a sandbox without an active session into one new session, gap-free', async () => {
    const own = await seedSandbox(t, accountId);
    const record = (i: number) =>
      t.services.sessions.recordCommand({ accountId, sandboxId: own, command: `echo ${i}`, exitCode: 0, output: `${i}\n`, durationMs: 1, timedOut: false, truncated: false });
    await Promise.all(Array.from({ length: 20 }, (_, i) => record(i)));
    const list = (await t.request('GET', `/v1/sandboxes/${own}/sessions`, { token: key })).body;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ agent_type: 'paddock-exec', status: 'active', event_count: 20 });
    const page = (await t.request('GET', `/v1/sessions/${list[0].id}/replay`, { token: key })).body;
    expect(page.events.map((e: any) => e.sequence)).toEqual(Array.from({ length: 20 }, (_, i) => i + 1));
    expect(page.events.map((e: any) => e.data.command).sort()).toEqual(Array.from({ length: 20 }, (_, i) => `echo ${i}`).sort());
  });

  it('lets read keys see sessions but not sandbox-scope keys', async () => {
    await ingest(t, key, [event(sandboxId, 'scopes', 'tool_call')]);
    const read = (await t.request('POST', '/v1/account/keys', { token: key, body: { name: 'r', scope: 'read' } })).body.key;
    const sandbox = (await t.request('POST', '/v1/account/keys', { token: key, body: { name: 's', scope: 'sandbox' } })).body.key;
    for (const route of ['/v1/sessions/scopes', '/v1/sessions/scopes/replay', '/v1/sessions/scopes/replay/summary', `/v1/sandboxes/${sandboxId}/sessions`]) {
      expect((await t.request('GET', route, { token: read })).status, route).toBe(200);
      expect((await t.request('GET', route, { token: sandbox })).status, route).toBe(403);
      expect((await t.request('GET', route)).status, route).toBe(401);
    }
  });
});

describe.each(BACKENDS)('session inactivity and operator prices on %s', (backend) => {
  let t: TestApp;
  let key: string;
  let sandboxId: string;
  const priceFile = path.join(os.tmpdir(), `paddock-prices-${process.pid}-${backend}.json`);

  beforeAll(async () => {
    fs.writeFileSync(
      priceFile,
      JSON.stringify([
        { match: 'homegrown-*', input_usd_per_million_tokens: 1, output_usd_per_million_tokens: 2 },
        { match: 'gpt-4o*', input_usd_per_million_tokens: 100, output_usd_per_million_tokens: 100 },
      ]),
    );
    t = await startApp(backend, { PADDOCK_SESSION_INACTIVITY_TIMEOUT_SECONDS: '1', PADDOCK_MODEL_PRICES_FILE: priceFile });
    ({ key, sandboxId } = await tenant(t));
  });
  afterAll(async () => {
    await t?.close();
    fs.rmSync(priceFile, { force: true });
  });

  it('prices models from the operator file before the built-in table', async () => {
    await ingest(t, key, [
      event(sandboxId, 'priced', 'llm_call', { model: 'homegrown-7b', tokens_in: 1_000_000, tokens_out: 1_000_000 }),
      event(sandboxId, 'priced', 'llm_call', { model: 'gpt-4o', tokens_in: 10_000, tokens_out: 0 }),
      event(sandboxId, 'priced', 'llm_call', { model: 'claude-3-opus-20240229', tokens_in: 1_000_000, tokens_out: 0 }),
    ]);
    const events = (await t.request('GET', '/v1/sessions/priced/replay', { token: key })).body.events;
    expect(events.map((e: any) => e.cost_usd)).toEqual([3, 1, 15]);
  });

  it('times an idle session out, and a later event makes it active again', async () => {
    const last = new Date().toISOString();
    await ingest(t, key, [{ ...event(sandboxId, 'idle', 'tool_call'), timestamp: last }]);
    const timedOut = await waitFor(
      'the idle session to time out',
      async () => {
        const reply = await t.request('GET', '/v1/sessions/idle', { token: key });
        return reply.body.status === 'timeout' && reply;
      },
      20_000,
      100,
    );
    expect(timedOut.body).toMatchObject({ status: 'timeout', ended_at: last });
    await ingest(t, key, [event(sandboxId, 'idle', 'tool_call')]);
    expect((await t.request('GET', '/v1/sessions/idle', { token: key })).body).toMatchObject({ status: 'active', ended_at: null, event_count: 2 });
  });
});
