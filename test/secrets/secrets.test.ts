// The account secrets store: set, replace, list, get and delete; values are encrypted at rest and never
// returned or logged.
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';

describe.each(BACKENDS)('secrets on %s', (backend) => {
  let t: TestApp;
  let key: string;
  const value = `sk-live-${Math.random().toString(36).slice(2)}-never-shown`;

  beforeAll(async () => {
    t = await startApp(backend);
    key = (await t.signup()).key;
    t.secrets.add(value);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('creates, replaces, lists, gets and deletes without ever returning the value', async () => {
    const created = await t.request('PUT', '/v1/secrets/OPENAI_API_KEY', { token: key, body: { value } });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({ name: 'OPENAI_API_KEY', created_at: expect.any(String), updated_at: expect.any(String) });
    const replaced = await t.request('PUT', '/v1/secrets/OPENAI_API_KEY', { token: key, body: { value: `${value}-2` } });
    expect(replaced.status).toBe(200);
    expect(replaced.body.created_at).toBe(created.body.created_at);
    t.secrets.add(`${value}-2`);

    const listed = await t.request('GET', '/v1/secrets', { token: key });
    expect(listed.body).toEqual([replaced.body]);
    const got = await t.request('GET', '/v1/secrets/OPENAI_API_KEY', { token: key });
    expect(got.body).toEqual(replaced.body);
    for (const reply of [created, replaced, listed, got]) expect(reply.text).not.toContain(value);

    // Encrypted at rest: the stored text does not contain the value.
    const rows = await t.storage.db.selectFrom('account_secrets').selectAll().execute();
    expect(rows).toHaveLength(1);
    expect(rows[0].ciphertext).not.toContain(value);
    expect(rows[0].ciphertext).toMatch(/^v1:/);

    // Other accounts see nothing.
    const other = (await t.signup()).key;
    expect((await t.request('GET', '/v1/secrets/OPENAI_API_KEY', { token: other })).status).toBe(404);
    expect((await t.request('GET', '/v1/secrets', { token: other })).body).toEqual([]);

    expect((await t.request('DELETE', '/v1/secrets/OPENAI_API_KEY', { token: key })).status).toBe(204);
    expect((await t.request('GET', '/v1/secrets/OPENAI_API_KEY', { token: key })).status).toBe(404);
    expect((await t.request('DELETE', '/v1/secrets/OPENAI_API_KEY', { token: key })).status).toBe(404);
  });

  it('rejects bad names and values with a 400 naming the field', async () => {
    const badName = await t.request('PUT', '/v1/secrets/1BAD-NAME', { token: key, body: { value: 'x' } });
    expect(badName.status).toBe(400);
    expect(badName.body.error).toMatch(/name/);
    const empty = await t.request('PUT', '/v1/secrets/GOOD', { token: key, body: { value: '' } });
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatch(/value/);
    expect((await t.request('PUT', '/v1/secrets/GOOD', { token: key, body: {} })).status).toBe(400);
    expect((await t.request('PUT', '/v1/secrets/GOOD', { token: key, body: { value: 'x', extra: 1 } })).status).toBe(400);
    expect((await t.request('PUT', '/v1/secrets/GOOD', { body: { value: 'x' } })).status).toBe(401);
  });

  it('keeps its key in the data directory when none is configured', () => {
    expect(fs.statSync(`${t.dataDir}/keys/secrets.key`).mode & 0o777).toBe(0o600);
  });
});
