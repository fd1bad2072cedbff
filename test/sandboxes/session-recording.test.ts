// Every exec through the API is recorded as a `command` event in the sandbox's active session, before
// the exec answers: real sandboxes (runc), SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { ndjsonLines } from '../helpers/ndjson.js';

describe.each(BACKENDS)('exec recording on runc with %s', (backend) => {
  let t: TestApp;
  let key: string;
  let sandboxId: string;

  const exec = (command: string) => t.request('POST', `/v1/sandboxes/${sandboxId}/exec`, { token: key, body: { command } });
  const sessions = async () => (await t.request('GET', `/v1/sandboxes/${sandboxId}/sessions`, { token: key })).body as any[];
  const replay = async (id: string, query = '?limit=1000') => (await t.request('GET', `/v1/sessions/${id}/replay${query}`, { token: key })).body;
  const ingest = (events: object[]) => t.request('POST', '/v1/events/ingest', { token: key, body: { events } });

  beforeAll(async () => {
    t = await startApp(backend, {}, { runtime: 'runc' });
    key = (await t.signupOnPlan('team')).key;
    const created = await t.request('POST', '/v1/sandboxes', { token: key, body: { template: 'minimal', cpus: 1, memory_mb: 256, disk_gb: 1, network_mode: 'none' } });
    expect(created.status).toBe(201);
    sandboxId = created.body.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('records buffered execs in a paddock-exec session before answering', async () => {
    expect((await exec('echo hello')).body).toMatchObject({ exit_code: 0, output: 'hello\n' });
    // no waiting: the event is in the database before the exec answered
    const [session] = await sessions();
    expect(session).toMatchObject({ agent_type: 'paddock-exec', status: 'active', event_count: 1, trust_score: 100 });
    expect(session.id).toMatch(/^ses_/);
    expect((await exec('echo oops >&2; exit 3')).body.exit_code).toBe(3);
    const page = await replay(session.id);
    expect(page.total).toBe(2);
    expect(page.events.map((e: any) => [e.sequence, e.type, e.data.command, e.data.exit_code, e.data.output])).toEqual([
      [1, 'command', 'echo hello', 0, 'hello\n'],
      [2, 'command', 'echo oops >&2; exit 3', 3, 'oops\n'],
    ]);
    expect(page.events[0].data).toMatchObject({ truncated: false, timed_out: false, duration_ms: expect.any(Number) });
    expect(page.events[0].meta).toEqual({ source: 'exec' });
  });

  it('records streaming execs too', async () => {
    const response = await fetch(`${t.url}/v1/sandboxes/${sandboxId}/exec/stream`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ command: 'echo streamed; exit 4' }),
    });
    const lines = ndjsonLines(await response.text());
    expect(lines.at(-1)).toMatchObject({ type: 'exit', exit_code: 4 });
    const [session] = await sessions();
    const last = (await replay(session.id)).events.at(-1);
    expect(last.data).toMatchObject({ command: 'echo streamed; exit 4', exit_code: 4, output: 'streamed\n' });
  });

  it('cuts recorded output to 16384 characters', async () => {
    expect((await exec('head -c 100000 /dev/zero | tr "\\0" y')).body.stdout).toHaveLength(100_000);
    const [session] = await sessions();
    const last = (await replay(session.id)).events.at(-1);
    expect(last.data.output).toHaveLength(16_384);
    expect(last.data.truncated).toBe(true);
  });

  it('scores recorded commands like ingested ones', async () => {
    await exec('chmod 777 /workspace; echo AKIAIOSFODNN7EXAMPLE');
    const [session] = await sessions();
    const summary = (await t.request('GET', `/v1/sessions/${session.id}/replay/summary`, { token: key })).body;
    expect(summary.findings.map((f: any) => f.rule)).toEqual(['privilege_change', 'secret_in_output']);
    expect(summary.trust_score).toBe(55);
    const alerts = (await t.request('GET', '/v1/alerts?type=trust_low', { token: key })).body;
    expect(alerts.map((a: any) => [a.resource.id, a.sandbox_id])).toEqual([[session.id, sandboxId]]);
  });

  it('records into the most recently active session, and into a new one once none is active', async () => {
    const [execSession] = await sessions();
    const agentSession = `agent-${backend}`;
    const lifecycle = (session: string, status: string) => ({
      session_id: session,
      sandbox_id: sandboxId,
      type: 'lifecycle',
      timestamp: new Date().toISOString(),
      payload: { status },
      meta: { agent_type: 'coder' },
    });
    expect((await ingest([lifecycle(agentSession, 'started')])).body.accepted).toBe(1);
    await exec('echo in-agent-session');
    expect((await replay(agentSession)).events.map((e: any) => [e.sequence, e.type, e.data.command ?? null])).toEqual([
      [1, 'lifecycle', null],
      [2, 'command', 'echo in-agent-session'],
    ]);

    // the agent ends: the exec session is the active one again
    await ingest([lifecycle(agentSession, 'completed')]);
    const countBefore = (await replay(execSession.id)).total;
    await exec('echo back-in-exec-session');
    expect((await replay(execSession.id)).events.at(-1)).toMatchObject({ sequence: countBefore + 1, data: { command: 'echo back-in-exec-session' } });

    // nothing active: a new paddock-exec session
    await ingest([lifecycle(execSession.id, 'completed')]);
    await exec('echo fresh');
    const list = await sessions();
    expect(list.map((s) => s.status)).toEqual(['active', 'completed', 'completed']);
    expect(list[0]).toMatchObject({ agent_type: 'paddock-exec', event_count: 1 });
    expect((await replay(list[0].id)).events[0].data.command).toBe('echo fresh');
    expect((await replay(agentSession)).total).toBe(3);
  });

  it('does not record an exec refused because the sandbox is not running', async () => {
    const created = await t.request('POST', '/v1/sandboxes', { token: key, body: { template: 'minimal', cpus: 1, memory_mb: 256, disk_gb: 1, network_mode: 'none' } });
    const other = created.body.id;
    await t.request('DELETE', `/v1/sandboxes/${other}`, { token: key });
    const reply = await t.request('POST', `/v1/sandboxes/${other}/exec`, { token: key, body: { command: 'echo no' } });
    expect(reply.body).toMatchObject({ exit_code: 1, error: expect.stringMatching(/destroyed/) });
    expect((await t.request('GET', `/v1/sandboxes/${other}/sessions`, { token: key })).body).toEqual([]);
  });
});
