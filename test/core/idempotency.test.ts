// Idempotency-Key on creating requests, Stripe's way: a retry with the same key and request gets the
// first answer back and nothing is done twice; another request under the same key is refused; it holds
// under concurrency, across a restart, on SQLite and PostgreSQL; keys expire after 24 h.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type Reply, type TestApp } from '../helpers/app.js';

const PIPELINE = { name: 'held', stages: [{ name: 'hold', type: 'await_approval' }] };

describe.each(BACKENDS)('idempotency keys on %s', (backend) => {
  let t: TestApp;
  let key: string;
  let accountId: string;
  let counter = 0;
  const newKey = () => `idem-${Date.now()}-${++counter}`;
  const post = (path: string, body: unknown, idempotencyKey?: string, token = key) =>
    t.request('POST', path, { token, body, headers: idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey } });
  const pipelineCount = async (name: string) =>
    Number(
      (
        await t.storage.db
          .selectFrom('pipelines')
          .select((eb) => eb.fn.countAll().as('n'))
          .where('account_id', '=', accountId)
          .where('name', '=', name)
          .executeTakeFirstOrThrow()
      ).n,
    );
  const replayed = (reply: Reply) => reply.headers.get('idempotent-replayed');

  beforeAll(async () => {
    t = await startApp(backend, { PADDOCK_IDEMPOTENCY_WAIT_MS: '400' });
    const signed = await t.signup();
    key = signed.key;
    accountId = signed.account.id;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('replays the first answer to a retry and does not create a second key', async () => {
    const idem = newKey();
    const first = await post('/v1/account/keys', { name: 'ci' }, idem);
    expect(first.status).toBe(201);
    expect(replayed(first)).toBeNull();
    const again = await post('/v1/account/keys', { name: 'ci' }, idem);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(replayed(again)).toBe('true');
    const keys = await t.request('GET', '/v1/account/keys', { token: key });
    expect(keys.body.filter((k: { name: string }) => k.name === 'ci')).toHaveLength(1);

    // The kept answer holds the new key's secret: it is sealed, not stored as text.
    const row = await t.storage.db.selectFrom('idempotency_keys').selectAll().where('key', '=', idem).executeTakeFirstOrThrow();
    expect(row.response_body).not.toContain(first.body.key);
    expect(row.response_body).not.toContain(Buffer.from(first.text).toString('base64').slice(0, 40));
    expect(row.response_body).toMatch(/^v1:/);
  });

  it('compares bodies as data: another key order or spacing is the same request', async () => {
    const idem = newKey();
    const first = await t.request('POST', '/v1/pipelines', { token: key, raw: JSON.stringify({ ...PIPELINE, name: 'ordered' }), headers: { 'idempotency-key': idem } });
    expect(first.status).toBe(201);
    const reordered = `{ "stages": [ { "type": "await_approval", "name": "hold" } ],\n "name": "ordered" }`;
    const again = await t.request('POST', '/v1/pipelines', { token: key, raw: reordered, headers: { 'idempotency-key': idem } });
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(replayed(again)).toBe('true');
    expect(await pipelineCount('ordered')).toBe(1);
  });

  it('refuses the same key with another body or path with 422 idempotency_conflict, creating nothing', async () => {
    const idem = newKey();
    expect((await post('/v1/pipelines', { ...PIPELINE, name: 'conflict-a' }, idem)).status).toBe(201);
    const otherBody = await post('/v1/pipelines', { ...PIPELINE, name: 'conflict-b' }, idem);
    expect(otherBody.status).toBe(422);
    expect(otherBody.body.error).toMatch(/Idempotency-Key .* was first used for POST \/v1\/pipelines with another body/);
    const otherPath = await post('/v1/account/keys', { name: 'conflict-b' }, idem);
    expect(otherPath.status).toBe(422);
    expect(otherPath.body.error).toMatch(/was first used for POST \/v1\/pipelines: a key names one request/);
    expect(await pipelineCount('conflict-b')).toBe(0);
    const keys = await t.request('GET', '/v1/account/keys', { token: key });
    expect(keys.body.filter((k: { name: string }) => k.name === 'conflict-b')).toHaveLength(0);
  });

  it('keeps keys per account', async () => {
    const idem = newKey();
    const mine = await post('/v1/pipelines', { ...PIPELINE, name: 'per-account' }, idem);
    const other = await t.signup();
    const theirs = await post('/v1/pipelines', { ...PIPELINE, name: 'per-account' }, idem, other.key);
    expect(theirs.status).toBe(201);
    expect(replayed(theirs)).toBeNull();
    expect(theirs.body.id).not.toBe(mine.body.id);
  });

  it('does the work once for concurrent duplicates, and every one gets the same answer', async () => {
    const idem = newKey();
    const replies = await Promise.all(Array.from({ length: 6 }, () => post('/v1/account/keys', { name: 'concurrent' }, idem)));
    for (const reply of replies) {
      expect(reply.status).toBe(201);
      expect(reply.text).toBe(replies[0].text);
    }
    expect(replies.filter((reply) => replayed(reply) === null)).toHaveLength(1);
    const keys = await t.request('GET', '/v1/account/keys', { token: key });
    expect(keys.body.filter((k: { name: string }) => k.name === 'concurrent')).toHaveLength(1);
  });

  it('keeps answers the work produced, 4xx included, but not requests refused before it', async () => {
    const missing = newKey();
    const notFound = await post('/v1/evals/scenarios/evs_doesnotexist/run', undefined, missing);
    expect(notFound.status).toBe(404);
    const notFoundAgain = await post('/v1/evals/scenarios/evs_doesnotexist/run', undefined, missing);
    expect(notFoundAgain.status).toBe(404);
    expect(notFoundAgain.text).toBe(notFound.text);
    expect(replayed(notFoundAgain)).toBe('true');

    // A body the schema refuses never reaches the key: the corrected request is not a conflict.
    const fixed = newKey();
    expect((await post('/v1/pipelines', { name: 'fixed' }, fixed)).status).toBe(400);
    const corrected = await post('/v1/pipelines', { ...PIPELINE, name: 'fixed' }, fixed);
    expect(corrected.status).toBe(201);
    expect(replayed(corrected)).toBeNull();

    // A scope refusal (403 before the handler) neither: the right key can use it after.
    const readKey = (await post('/v1/account/keys', { name: 'reader', scope: 'read' })).body.key;
    const scoped = newKey();
    expect((await post('/v1/pipelines', { ...PIPELINE, name: 'scoped' }, scoped, readKey)).status).toBe(403);
    expect((await post('/v1/pipelines', { ...PIPELINE, name: 'scoped' }, scoped)).status).toBe(201);
  });

  it('keeps no 5xx: the key is freed and a retry does the work again', async () => {
    // This server has no sandbox runtime, so running a scenario answers 503.
    const scenario = await post('/v1/evals/scenarios', { name: 'no-runtime', template: 'minimal', command: 'echo hello', checks: [{ type: 'exit_code', equals: 0 }] });
    expect(scenario.status).toBe(201);
    const idem = newKey();
    const failed = await post(`/v1/evals/scenarios/${scenario.body.id}/run`, undefined, idem);
    expect(failed.status).toBe(503);
    expect(await t.storage.db.selectFrom('idempotency_keys').select('key').where('key', '=', idem).executeTakeFirst()).toBeUndefined();
    const retried = await post(`/v1/evals/scenarios/${scenario.body.id}/run`, undefined, idem);
    expect(retried.status).toBe(503);
    expect(replayed(retried)).toBeNull();
  });

  it('answers 400 for a key over 255 characters or empty, and accepts 255', async () => {
    const long = await post('/v1/pipelines', { ...PIPELINE, name: 'long-key' }, 'k'.repeat(256));
    expect(long.status).toBe(400);
    expect(long.body.error).toMatch(/idempotency-key/i);
    expect((await post('/v1/pipelines', { ...PIPELINE, name: 'long-key' }, '')).status).toBe(400);
    expect(await pipelineCount('long-key')).toBe(0);
    const longest = await post('/v1/pipelines', { ...PIPELINE, name: 'long-key' }, 'k'.repeat(255));
    expect(longest.status).toBe(201);
  });

  it('makes a duplicate of a request still running wait, then answer 409 idempotency_in_progress with Retry-After', async () => {
    const body = { name: 'in-progress' };
    const done = newKey();
    expect((await post('/v1/account/keys', body, done)).status).toBe(201);
    const { fingerprint } = await t.storage.db.selectFrom('idempotency_keys').select('fingerprint').where('key', '=', done).executeTakeFirstOrThrow();
    // Another server process is mid-request with this key and this request.
    const idem = newKey();
    const now = new Date();
    await t.storage.db
      .insertInto('idempotency_keys')
      .values({
        account_id: accountId,
        key: idem,
        fingerprint,
        method: 'POST',
        path: '/v1/account/keys',
        response_status: null,
        response_headers: null,
        response_body: null,
        created_at: now.toISOString(),
        completed_at: null,
        expires_at: new Date(now.getTime() + 86_400_000).toISOString(),
      })
      .execute();
    const keysNamed = async () => (await t.request('GET', '/v1/account/keys', { token: key })).body.filter((k: { name: string }) => k.name === 'in-progress').length;
    const started = Date.now();
    const busy = await post('/v1/account/keys', body, idem);
    expect(busy.status).toBe(409);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(busy.body.error).toMatch(/still running/);
    expect(await keysNamed()).toBe(1);

    // That server stopped mid-request: ten minutes on, the key is free for the retry to do the work.
    await t.storage.db
      .updateTable('idempotency_keys')
      .set({ created_at: new Date(now.getTime() - 11 * 60_000).toISOString() })
      .where('key', '=', idem)
      .execute();
    const taken = await post('/v1/account/keys', body, idem);
    expect(taken.status).toBe(201);
    expect(replayed(taken)).toBeNull();
    expect(await keysNamed()).toBe(2);
  });

  it('forgets keys after 24 h: the key can be used again and the periodic prune removes them', async () => {
    const idem = newKey();
    const first = await post('/v1/pipelines', { ...PIPELINE, name: 'expiring' }, idem);
    expect(first.status).toBe(201);
    const dayAgo = new Date(Date.now() - 1000).toISOString();
    await t.storage.db.updateTable('idempotency_keys').set({ expires_at: dayAgo }).where('key', '=', idem).execute();
    const reused = await post('/v1/pipelines', { ...PIPELINE, name: 'expiring-2' }, idem);
    expect(reused.status).toBe(201);
    expect(replayed(reused)).toBeNull();

    const other = newKey();
    await post('/v1/pipelines', { ...PIPELINE, name: 'expiring-3' }, other);
    await t.storage.db.updateTable('idempotency_keys').set({ expires_at: dayAgo }).where('key', '=', other).execute();
    expect(await t.services.idempotency.prune()).toBe(1);
    expect(await t.storage.db.selectFrom('idempotency_keys').select('key').where('key', '=', other).executeTakeFirst()).toBeUndefined();
    expect(await t.storage.db.selectFrom('idempotency_keys').select('key').where('key', '=', idem).executeTakeFirst()).toBeDefined();
  });

  it('does nothing special without the header', async () => {
    expect((await post('/v1/pipelines', { ...PIPELINE, name: 'plain' })).status).toBe(201);
    expect((await post('/v1/pipelines', { ...PIPELINE, name: 'plain' })).status).toBe(409);
  });
});

describe.each(BACKENDS)('idempotency keys across a restart on %s', (backend) => {
  it('replays the first answer after the server restarts', async () => {
    const first = await startApp(backend);
    const { key } = await first.signup();
    const request = { token: key, body: { value: 'restart-secret-value' }, headers: { 'idempotency-key': 'restart-1' } };
    first.secrets.add('restart-secret-value');
    const created = await first.request('PUT', '/v1/secrets/RESTART', request);
    expect(created.status).toBe(201);
    await first.close({ keepData: true });

    const second = await startApp(backend, {}, { reuse: { dataDir: first.dataDir, databaseUrl: first.databaseUrl } });
    try {
      const again = await second.request('PUT', '/v1/secrets/RESTART', request);
      expect(again.status).toBe(201);
      expect(again.text).toBe(created.text);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      const conflict = await second.request('PUT', '/v1/secrets/RESTART', { ...request, body: { value: 'another-value' } });
      expect(conflict.status).toBe(422);
    } finally {
      await second.close();
    }
  });
});
