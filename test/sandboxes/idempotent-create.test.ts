// A client retrying a sandbox create it saw no answer to (a timeout, a dropped connection) never gets two
// sandboxes: the Idempotency-Key makes every retry, concurrent or later, answer the first sandbox. And
// every authenticated POST and PUT of the API honours the header, as /openapi.json lists it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/wait-for.js';

const TEMPLATE = 'python-311';
/** Authenticated writes that do not take Idempotency-Key, and why (see the API description). */
const EXEMPT = new Set([
  'post /v1/sandboxes/{id}/exec/stream', // answered as a stream while the command runs: nothing to keep
  'put /v1/sandboxes/{id}/files/content', // a raw body; writing the same bytes twice is harmless
  // The A2A protocol binding answers in A2A's own shapes (JSON-RPC and HTTP+JSON error bodies, streams for
  // message/stream and SendStreamingMessage); A2A clients retry by reading the task (GetTask), not with
  // Idempotency-Key, so these routes neither read nor list the header.
  'post /a2a/{agentId}',
  'post /a2a/{agentId}/message:send',
  'post /a2a/{agentId}/message:stream',
  'post /a2a/{agentId}/tasks/{ref}',
  'post /a2a/{agentId}/tasks/{taskId}/pushNotificationConfigs',
]);

describe.each(BACKENDS)('idempotent sandbox creates on runc with %s', (backend) => {
  let t: TestApp;

  const create = (token: string, idempotencyKey: string, signal?: AbortSignal) =>
    fetch(`${t.url}/v1/sandboxes`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      body: JSON.stringify({ template: TEMPLATE, cpus: 1, memory_mb: 256 }),
      signal,
    });
  const sandboxesOf = async (token: string) => (await t.request('GET', '/v1/sandboxes', { token })).body as { id: string }[];

  beforeAll(async () => {
    t = await startApp(backend, {}, { runtime: 'runc' });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('creates one sandbox for two concurrent creates with the same key, and both answers are equal', async () => {
    const { key } = await t.signupOnPlan('team');
    const [a, b] = await Promise.all([create(key, 'create-1'), create(key, 'create-1')]);
    const [textA, textB] = [await a.text(), await b.text()];
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(textB).toBe(textA);
    expect([a.headers.get('idempotent-replayed'), b.headers.get('idempotent-replayed')].sort()).toEqual(['true', null].sort());
    const listed = await sandboxesOf(key);
    expect(listed.map((sandbox) => sandbox.id)).toEqual([JSON.parse(textA).id]);

    // A retry after the first finished gets the same answer, and still one sandbox.
    const retry = await create(key, 'create-1');
    expect(retry.status).toBe(201);
    expect(await retry.text()).toBe(textA);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await sandboxesOf(key)).toHaveLength(1);

    // Another key is another sandbox.
    expect((await create(key, 'create-2')).status).toBe(201);
    expect(await sandboxesOf(key)).toHaveLength(2);
  });

  it('answers a retry of a create the client gave up on with the sandbox the server went on to create', async () => {
    const { key, account } = await t.signupOnPlan('team');
    const giveUp = new AbortController();
    const first = create(key, 'timed-out', giveUp.signal).then(
      () => 'answered',
      () => 'aborted',
    );
    // The client times out while the server is creating the sandbox (the key is claimed, no answer yet).
    const claimed = await waitFor(
      'the create to claim its key',
      () => t.storage.db.selectFrom('idempotency_keys').select('response_status').where('account_id', '=', account.id).where('key', '=', 'timed-out').executeTakeFirst(),
      30_000,
      5,
    );
    expect(claimed.response_status).toBeNull();
    giveUp.abort();
    expect(await first).toBe('aborted');

    const retry = await create(key, 'timed-out');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    const sandbox = JSON.parse(await retry.text());
    const listed = await sandboxesOf(key);
    expect(listed.map((one) => one.id)).toEqual([sandbox.id]);
    const detail = await t.request('GET', `/v1/sandboxes/${sandbox.id}`, { token: key });
    expect(detail.body.status).toBe('running');
  });

  it('lists Idempotency-Key on every authenticated POST and PUT in /openapi.json', async () => {
    const spec = (await t.request('GET', '/openapi.json')).body;
    const honouring: string[] = [];
    for (const [path, operations] of Object.entries<Record<string, any>>(spec.paths)) {
      for (const method of ['post', 'put']) {
        const operation = operations[method];
        if (!operation) continue;
        const route = `${method} ${path}`;
        const open = Array.isArray(operation.security) && operation.security.length === 0;
        const header = (operation.parameters ?? []).find((p: { in: string; name: string }) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
        if (open || EXEMPT.has(route)) {
          expect(header, route).toBeUndefined();
          continue;
        }
        expect(header, `${route} does not declare idempotent`).toBeDefined();
        expect(header.required ?? false).toBe(false);
        expect(header.schema.maxLength).toBe(255);
        honouring.push(route);
      }
    }
    // The creating routes the issue names are among them.
    for (const route of [
      'post /v1/sandboxes',
      'post /v1/sandboxes/{id}/snapshots',
      'post /v1/account/keys',
      'put /v1/secrets/{name}',
      'post /v1/pipelines',
      'put /v1/pipelines/{id}',
      'post /v1/pipelines/{id}/runs',
      'post /v1/evals/scenarios/{id}/run',
      'post /v1/evals/suites/{id}/run',
      'put /v1/alerts/rules/{id}',
      'post /v1/events/ingest',
    ]) {
      expect(honouring).toContain(route);
    }
    for (const route of EXEMPT) expect(Object.keys(spec.paths[route.split(' ')[1]] ?? {}), route).toContain(route.split(' ')[0]);
  });
});
