// Sandbox lifecycle events reach account webhook endpoints: each edge of a real sandbox's life
// (created, paused, resumed, destroyed) is delivered signed, once, with the timeline event's id as
// webhook-id and the same type and data as GET /v1/sandboxes/{id}/events; an endpoint subscribed to
// other types gets none of them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/core/webhooks/signature.js';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { startHttpReceiver, type HttpReceiver, type ReceivedRequest } from '../helpers/receivers.js';
import { waitFor } from '../helpers/wait-for.js';

function verified(secret: string, request: ReceivedRequest): boolean {
  return verifyWebhook(secret, request.headers['webhook-id'] as string, Number(request.headers['webhook-timestamp']), request.body, request.headers['webhook-signature'] as string);
}

describe.each(BACKENDS)('sandbox events to webhooks on runc with %s', (backend) => {
  let t: TestApp;
  let hook: HttpReceiver;
  let pipelinesOnly: HttpReceiver;

  beforeAll(async () => {
    t = await startApp(backend, { PADDOCK_ALLOW_PRIVATE_WEBHOOKS: 'true', PADDOCK_ALLOW_HTTP_WEBHOOKS: 'true', PADDOCK_OUTBOX_POLL_INTERVAL_MS: '50' }, { runtime: 'runc' });
    hook = await startHttpReceiver();
    pipelinesOnly = await startHttpReceiver();
  });
  afterAll(async () => {
    await t?.close();
    await hook?.close();
    await pipelinesOnly?.close();
  });

  it('delivers every lifecycle event of a sandbox, signed, as its timeline shows it', async () => {
    const { key } = await t.signup();
    const subscribe = async (url: string, events: string[]) => {
      const reply = await t.request('POST', '/v1/webhooks', { token: key, body: { url, events } });
      expect(reply.status, reply.text).toBe(201);
      return reply.body as { id: string; secret: string };
    };
    const endpoint = await subscribe(`${hook.url}/sandboxes`, ['sandbox.created', 'sandbox.paused', 'sandbox.resumed', 'sandbox.destroyed']);
    await subscribe(`${pipelinesOnly.url}/pipelines`, ['pipeline.run.completed']);

    const created = await t.request('POST', '/v1/sandboxes', { token: key, body: { template: 'python-311', network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1 } });
    expect(created.status, created.text).toBe(201);
    const id = created.body.id as string;
    expect((await t.request('POST', `/v1/sandboxes/${id}/pause`, { token: key })).status).toBe(200);
    expect((await t.request('POST', `/v1/sandboxes/${id}/resume`, { token: key })).status).toBe(200);
    expect((await t.request('DELETE', `/v1/sandboxes/${id}`, { token: key })).status).toBe(204);

    const received = await waitFor('four sandbox deliveries', () => (hook.requests.length >= 4 ? hook.requests : null), 20_000);
    const timeline = (await t.request('GET', `/v1/sandboxes/${id}/events`, { token: key })).body as Array<{ id: string; type: string; data: Record<string, unknown> }>;
    const expected = timeline.filter((event) => ['sandbox.created', 'sandbox.paused', 'sandbox.resumed', 'sandbox.destroyed'].includes(event.type));
    expect(expected.map((event) => event.type)).toEqual(['sandbox.created', 'sandbox.paused', 'sandbox.resumed', 'sandbox.destroyed']);

    const byId = new Map(received.map((request) => [request.headers['webhook-id'] as string, request]));
    expect(byId.size).toBe(received.length);
    for (const event of expected) {
      const request = byId.get(event.id);
      expect(request, `delivery of ${event.type}`).toBeDefined();
      expect(verified(endpoint.secret, request!)).toBe(true);
      const body = JSON.parse(request!.body);
      expect(body).toMatchObject({ type: event.type, data: { sandbox_id: id } });
      expect(body.data).toMatchObject(event.data);
    }
    expect(received.map((request) => JSON.parse(request.body).type).sort()).toEqual(expected.map((event) => event.type).sort());
    expect(pipelinesOnly.requests).toHaveLength(0);
  });
});
