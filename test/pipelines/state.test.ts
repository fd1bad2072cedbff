// Run state: the spec's limits (key 256, value 1 MB, 100 entries, 10 MB, TTL 30 d), 404 for a missing
// key, expiry, JSON serialization, created_by, and no leak across runs; on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { createPipeline, startRun } from '../helpers/pipelines.js';

describe.each(BACKENDS)('run state on %s', (backend) => {
  let t: TestApp;
  let key: string;
  let pipelineId: string;
  // An approval stage keeps runs paused, so nothing but the test writes their state.
  const newRun = async () => (await startRun(t, key, pipelineId)).id as string;
  const path = (runId: string, stateKey = '') => `/v1/pipelines/${pipelineId}/runs/${runId}/state${stateKey ? `/${encodeURIComponent(stateKey)}` : ''}`;

  beforeAll(async () => {
    t = await startApp(backend);
    ({ key } = await t.signup());
    pipelineId = (await createPipeline(t, key, { stages: [{ name: 'hold', type: 'await_approval' }] })).id;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('sets, reads, lists and deletes entries', async () => {
    const runId = await newRun();
    const put = await t.request('PUT', path(runId, 'greeting'), { token: key, body: { value: 'héllo' } });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({ key: 'greeting', value: 'héllo', type: 'string', size_bytes: 6, created_by: 'api', mime_type: null });
    expect(Date.parse(put.body.expires_at) - Date.parse(put.body.created_at)).toBe(604_800_000);
    const json = await t.request('PUT', path(runId, 'result'), { token: key, body: { value: { score: 0.9, ok: true }, created_by: 'ci-bot', ttl_seconds: 60 } });
    expect(json.body).toMatchObject({ value: '{"score":0.9,"ok":true}', type: 'json', created_by: 'ci-bot' });
    const list = await t.request('GET', path(runId), { token: key });
    expect(list.body.map((e: any) => e.key)).toEqual(['greeting', 'result']);
    expect((await t.request('GET', path(runId, 'greeting'), { token: key })).body.value).toBe('héllo');
    expect((await t.request('DELETE', path(runId, 'greeting'), { token: key })).status).toBe(204);
    expect((await t.request('GET', path(runId, 'greeting'), { token: key })).status).toBe(404);
    expect((await t.request('DELETE', path(runId, 'greeting'), { token: key })).status).toBe(404);
  });

  it('answers 404 for a missing key and keeps runs apart', async () => {
    const a = await newRun();
    const b = await newRun();
    await t.request('PUT', path(a, 'secret'), { token: key, body: { value: 'only-a' } });
    const missing = await t.request('GET', path(b, 'secret'), { token: key });
    expect(missing.status).toBe(404);
    expect(missing.body.error).toMatch(/state key "secret" not found/);
    expect((await t.request('GET', path(b), { token: key })).body).toEqual([]);
  });

  it('enforces the key, value, TTL and value-required limits with 400', async () => {
    const runId = await newRun();
    const longKey = await t.request('PUT', path(runId, 'k'.repeat(257)), { token: key, body: { value: 'x' } });
    expect(longKey.status).toBe(400);
    expect(longKey.body.error).toMatch(/256 characters/);
    expect((await t.request('PUT', path(runId, 'k'.repeat(256)), { token: key, body: { value: 'x' } })).status).toBe(200);
    const big = await t.request('PUT', path(runId, 'big'), { token: key, body: { value: 'x'.repeat(1024 * 1024 + 1) } });
    expect(big.status).toBe(400);
    expect(big.body.error).toMatch(/1 MB/);
    const ttl = await t.request('PUT', path(runId, 'ttl'), { token: key, body: { value: 'x', ttl_seconds: 2_592_001 } });
    expect(ttl.status).toBe(400);
    expect(ttl.body.error).toMatch(/30 days/);
    expect((await t.request('PUT', path(runId, 'ttl'), { token: key, body: { value: 'x', ttl_seconds: 2_592_000 } })).status).toBe(200);
    expect((await t.request('PUT', path(runId, 'none'), { token: key, body: {} })).status).toBe(400);
    expect((await t.request('PUT', path(runId, 'badtype'), { token: key, body: { value: 'x', type: 'blob' } })).status).toBe(400);
  });

  it('refuses the 101st entry but allows replacing an existing one', async () => {
    const runId = await newRun();
    for (let i = 0; i < 100; i++) expect((await t.request('PUT', path(runId, `k${i}`), { token: key, body: { value: String(i) } })).status).toBe(200);
    const over = await t.request('PUT', path(runId, 'k100'), { token: key, body: { value: 'x' } });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatch(/100 state entries/);
    expect((await t.request('PUT', path(runId, 'k5'), { token: key, body: { value: 'replaced' } })).status).toBe(200);
  });

  it('refuses writes past 10 MB per run', async () => {
    const runId = await newRun();
    const mb = 'x'.repeat(1024 * 1024 - 16);
    for (let i = 0; i < 10; i++) expect((await t.request('PUT', path(runId, `chunk${i}`), { token: key, body: { value: mb } })).status).toBe(200);
    const over = await t.request('PUT', path(runId, 'chunk10'), { token: key, body: { value: 'x'.repeat(1024) } });
    expect(over.status).toBe(400);
    expect(over.body.error).toMatch(/10 MB/);
  });

  it('hides expired entries and purges them', async () => {
    const runId = await newRun();
    await t.request('PUT', path(runId, 'short'), { token: key, body: { value: 'soon gone', ttl_seconds: 1 } });
    expect((await t.request('GET', path(runId, 'short'), { token: key })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 2100));
    expect((await t.request('GET', path(runId, 'short'), { token: key })).status).toBe(404);
    expect((await t.request('GET', path(runId), { token: key })).body).toEqual([]);
    const rows = await t.storage.db.selectFrom('pipeline_run_state').select('key').where('run_id', '=', runId).execute();
    expect(rows).toEqual([]);
  });
});
