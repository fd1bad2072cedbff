// Replay pages and summaries: keyset pagination by sequence, type filters, bad paging input, and
// gap-free sequences under concurrent ingest, on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { event, ingest, tenant } from '../helpers/sessions.js';

const TYPES = ['llm_call', 'tool_call', 'file_op', 'command', 'network', 'error', 'lifecycle'] as const;

describe.each(BACKENDS)('replay on %s', (backend) => {
  let t: TestApp;
  let key: string;
  let sandboxId: string;
  const replay = (id: string, query = '') => t.request('GET', `/v1/sessions/${id}/replay${query}`, { token: key });

  beforeAll(async () => {
    t = await startApp(backend);
    ({ key, sandboxId } = await tenant(t));
    // 250 events: every 10th an error, the rest tool calls, in two batches.
    const events = Array.from({ length: 250 }, (_, i) => event(sandboxId, 'long', i % 10 === 9 ? 'error' : 'tool_call', { i }));
    expect((await ingest(t, key, events.slice(0, 120))).body.accepted).toBe(120);
    expect((await ingest(t, key, events.slice(120))).body.accepted).toBe(130);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('pages through every event in order with after_seq = next_seq, 100 by default', async () => {
    const seen: number[] = [];
    const pages: any[] = [];
    let after = 0;
    for (;;) {
      const reply = await replay('long', after ? `?after_seq=${after}` : '');
      expect(reply.status).toBe(200);
      pages.push(reply.body);
      seen.push(...reply.body.events.map((e: any) => e.sequence));
      after = reply.body.next_seq;
      if (!reply.body.has_more) break;
    }
    expect(pages.map((p) => [p.events.length, p.has_more, p.next_seq, p.total])).toEqual([
      [100, true, 100, 250],
      [100, true, 200, 250],
      [50, false, 250, 250],
    ]);
    expect(seen).toEqual(Array.from({ length: 250 }, (_, i) => i + 1));
    const first = pages[0].events[0];
    expect(first).toMatchObject({ session_id: 'long', sequence: 1, type: 'tool_call', data: { i: 0 }, meta: {} });
    expect(first.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('honours limit up to 1000', async () => {
    const reply = await replay('long', '?limit=1000');
    expect(reply.body).toMatchObject({ has_more: false, next_seq: 250, total: 250 });
    expect(reply.body.events).toHaveLength(250);
    const small = await replay('long', '?after_seq=7&limit=3');
    expect(small.body.events.map((e: any) => e.sequence)).toEqual([8, 9, 10]);
    expect(small.body).toMatchObject({ has_more: true, next_seq: 10 });
  });

  it('filters by type, with total counting that type', async () => {
    const errors = await replay('long', '?type=error&limit=10');
    expect(errors.body.events.map((e: any) => e.sequence)).toEqual([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    expect(errors.body).toMatchObject({ has_more: true, next_seq: 100, total: 25 });
    const rest = await replay('long', '?type=error&limit=100&after_seq=100');
    expect(rest.body.events).toHaveLength(15);
    expect(rest.body).toMatchObject({ has_more: false, next_seq: 250, total: 25 });
    const none = await replay('long', '?type=network');
    expect(none.body).toEqual({ events: [], has_more: false, next_seq: 250, total: 0 });
  });

  it('answers an empty page for after_seq at or past the end', async () => {
    for (const after of [250, 251, 1_000_000, 2 ** 40]) {
      const reply = await replay('long', `?after_seq=${after}`);
      expect(reply.status).toBe(200);
      expect(reply.body).toEqual({ events: [], has_more: false, next_seq: 250, total: 250 });
    }
  });

  it.each([
    ['limit=0', 'query.limit'],
    ['limit=-5', 'query.limit'],
    ['limit=1001', 'query.limit'],
    ['limit=99999999999999999999', 'query.limit'],
    ['limit=abc', 'query.limit'],
    ['limit=2.5', 'query.limit'],
    ['after_seq=-1', 'query.after_seq'],
    ['after_seq=x', 'query.after_seq'],
    ['after_seq=1e400', 'query.after_seq'],
    ['type=llm', 'query.type'],
    ['cursor=5', 'query.cursor'],
  ])('answers 400 for %s, naming %s', async (query, field) => {
    const reply = await replay('long', `?${query}`);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toContain(field);
  });

  it('answers 404 for an unknown session id, however odd', async () => {
    for (const id of ['nope', 'x'.repeat(128), encodeURIComponent("' or 1=1 --"), 'ses_01m8000000000000000000000']) {
      const reply = await replay(id);
      expect(reply.status, id).toBe(404);
      expect(reply.body).toEqual({ error: 'session not found', code: 'not_found' });
    }
    expect((await replay('%00')).body).toEqual({ error: 'params.id contains a NUL character (U+0000): nothing has such an id', code: 'not_found' });
    expect((await replay('x'.repeat(129))).status).toBe(400);
    expect((await t.request('GET', '/v1/sandboxes/%00/sessions', { token: key })).status).toBe(404);
  });

  it('summarizes counts per type, time range, tokens, cost and trust', async () => {
    const first = new Date(Date.now() - 120_000).toISOString();
    const middle = new Date(Date.now() - 60_000).toISOString();
    const last = new Date(Date.now() - 1_000).toISOString();
    await ingest(t, key, [
      { ...event(sandboxId, 'summed', 'lifecycle', { status: 'started' }), timestamp: first },
      { ...event(sandboxId, 'summed', 'llm_call', { model: 'gpt-4o', tokens_in: 100, tokens_out: 50, cost_usd: 0.2 }), timestamp: middle },
      { ...event(sandboxId, 'summed', 'llm_call', { model: 'gpt-4o', tokens_in: 10, tokens_out: 5, cost_usd: 0.05 }), timestamp: middle },
      { ...event(sandboxId, 'summed', 'command', { command: 'ls', exit_code: 0, output: 'a\n' }), timestamp: middle },
      { ...event(sandboxId, 'summed', 'error', { message: 'tool crashed' }), timestamp: middle },
      { ...event(sandboxId, 'summed', 'lifecycle', { status: 'completed' }), timestamp: last },
    ]);
    const reply = await t.request('GET', '/v1/sessions/summed/replay/summary', { token: key });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      session_id: 'summed',
      sandbox_id: sandboxId,
      status: 'completed',
      event_count: 6,
      counts: { llm_call: 2, tool_call: 0, file_op: 0, command: 1, network: 0, error: 1, lifecycle: 2 },
      first_event_at: first,
      last_event_at: last,
      duration_ms: Date.parse(last) - Date.parse(first),
      tokens_in: 110,
      tokens_out: 55,
      cost_usd: 0.25,
      llm_cost_usd: 0.25,
      compute_cost_usd: 0,
      trust_score: 95,
    });
    expect(reply.body.findings).toEqual([{ rule: 'agent_error', severity: 'low', weight: 5, penalty: 5, sequence: 5, evidence: 'tool crashed', created_at: expect.any(String) }]);
  });

  it('numbers events 1…N with no gap or repeat under concurrent batches to one session', async () => {
    const batches = Array.from({ length: 8 }, (_, b) =>
      Array.from({ length: 50 }, (_, i) => event(sandboxId, 'racing', TYPES[(b + i) % TYPES.length] === 'lifecycle' ? 'tool_call' : TYPES[(b + i) % TYPES.length], { b, i })),
    );
    const replies = await Promise.all(batches.map((batch) => ingest(t, key, batch)));
    expect(replies.map((r) => r.body.accepted)).toEqual(Array(8).fill(50));
    const page = await replay('racing', '?limit=1000');
    expect(page.body.total).toBe(400);
    expect(page.body.events.map((e: any) => e.sequence)).toEqual(Array.from({ length: 400 }, (_, i) => i + 1));
    // each batch's events keep their order within the session
    for (let b = 0; b < 8; b++) {
      const order = page.body.events.filter((e: any) => e.data.b === b).map((e: any) => e.data.i);
      expect(order).toEqual(Array.from({ length: 50 }, (_, i) => i));
    }
    const summary = await t.request('GET', '/v1/sessions/racing/replay/summary', { token: key });
    expect(Object.values(summary.body.counts).reduce((a: number, b) => a + (b as number), 0)).toBe(400);
  });
});
