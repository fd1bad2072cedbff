// Webhook deliveries end to end against a real receiver: a test delivery signed with the endpoint's
// secret (Standard Webhooks, webhook-id = the event id), retried after a 500 until it succeeds, dropped
// once the endpoint is deleted or disabled, listed with its attempts; and a pipeline run pushing the
// spec's pipeline.run.* and pipeline.stage.* events to the endpoints subscribed to them, in order.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/core/webhooks/signature.js';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { startHttpReceiver, type HttpReceiver, type ReceivedRequest } from '../helpers/receivers.js';
import { waitFor } from '../helpers/wait-for.js';
import { createPipeline, startRun, timeline, waitForRun } from '../helpers/pipelines.js';

const BACKOFF_BASE_MS = 200;

function verified(secret: string, request: ReceivedRequest): boolean {
  const id = request.headers['webhook-id'] as string;
  const timestamp = Number(request.headers['webhook-timestamp']);
  return verifyWebhook(secret, id, timestamp, request.body, request.headers['webhook-signature'] as string);
}

describe.each(BACKENDS)('webhook deliveries on %s', (backend) => {
  let t: TestApp;
  const receivers: HttpReceiver[] = [];

  beforeAll(async () => {
    t = await startApp(backend, {
      PADDOCK_ALLOW_PRIVATE_WEBHOOKS: 'true',
      PADDOCK_ALLOW_HTTP_WEBHOOKS: 'true',
      PADDOCK_OUTBOX_POLL_INTERVAL_MS: '50',
      PADDOCK_OUTBOX_BACKOFF_BASE_MS: String(BACKOFF_BASE_MS),
      PADDOCK_OUTBOX_MAX_ATTEMPTS: '3',
      PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50',
    });
  });
  afterAll(async () => {
    await t?.close();
    for (const receiver of receivers) await receiver.close();
  });

  async function receiver(respond?: HttpReceiver['respond']) {
    const started = await startHttpReceiver(respond);
    receivers.push(started);
    return started;
  }

  async function endpoint(key: string, url: string, events: string[] = ['*']) {
    const reply = await t.request('POST', '/v1/webhooks', { token: key, body: { url, events } });
    expect(reply.status, reply.text).toBe(201);
    return reply.body as { id: string; secret: string };
  }

  const deliveries = async (key: string, endpointId: string, query = '') => (await t.request('GET', `/v1/webhooks/${endpointId}/deliveries${query}`, { token: key })).body;

  it('sends a test delivery signed with the endpoint secret, with the event id as webhook-id', async () => {
    const { key } = await t.signup();
    const hook = await receiver();
    const created = await endpoint(key, `${hook.url}/paddock`, ['pipeline.run.failed']);
    const queued = await t.request('POST', `/v1/webhooks/${created.id}/test`, { token: key });
    expect(queued.status, queued.text).toBe(202);
    expect(queued.body).toMatchObject({ event_type: 'webhook.test', status: 'pending', attempts: 0, attempt_history: [] });
    expect(queued.body.event_id).toMatch(/^evt_/);

    const [request] = await waitFor('the test delivery', () => (hook.requests.length ? hook.requests : null));
    expect(request).toMatchObject({ method: 'POST', path: '/paddock' });
    expect(request.headers['content-type']).toMatch(/^application\/json/);
    expect(request.headers['webhook-id']).toBe(queued.body.event_id);
    expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(verified(created.secret, request)).toBe(true);
    expect(verified(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, request)).toBe(false);
    const body = JSON.parse(request.body);
    expect(body).toEqual({ type: 'webhook.test', timestamp: expect.any(String), data: { endpoint_id: created.id, message: expect.stringContaining('test delivery') } });

    const [listed] = await waitFor('the delivered record', async () => {
      const list = await deliveries(key, created.id);
      return list[0]?.status === 'delivered' ? list : null;
    });
    expect(listed).toMatchObject({ id: queued.body.id, event_id: queued.body.event_id, event_type: 'webhook.test', attempts: 1, response_status: 200, last_error: null, next_attempt_at: null });
    expect(listed.delivered_at).toBeTruthy();
    expect(listed.attempt_history).toEqual([expect.objectContaining({ attempt: 1, outcome: 'delivered', status_code: 200, response: 'ok' })]);
  });

  it('retries after a 500 with backoff, with the same webhook-id, until the receiver takes it', async () => {
    const { key } = await t.signup();
    const hook = await receiver((_request, index) => (index === 0 ? 500 : 204));
    const created = await endpoint(key, hook.url);
    const queued = (await t.request('POST', `/v1/webhooks/${created.id}/test`, { token: key })).body;
    const [listed] = await waitFor('the retried delivery', async () => {
      const list = await deliveries(key, created.id);
      return list[0]?.status === 'delivered' ? list : null;
    });
    expect(listed).toMatchObject({ attempts: 2, response_status: 204, last_error: null });
    expect(listed.attempt_history).toMatchObject([
      { attempt: 1, outcome: 'failed', status_code: 500, error: 'the receiver answered HTTP 500', response: 'failing with 500' },
      { attempt: 2, outcome: 'delivered', status_code: 204 },
    ]);
    expect(hook.requests).toHaveLength(2);
    expect(hook.requests.map((r) => r.headers['webhook-id'])).toEqual([queued.event_id, queued.event_id]);
    expect(hook.requests.every((r) => verified(created.secret, r))).toBe(true);
    expect(hook.requests[1].receivedAt - hook.requests[0].receivedAt).toBeGreaterThanOrEqual(BACKOFF_BASE_MS - 20);
    const failedOnly = await deliveries(key, created.id, '?status=failed');
    expect(failedOnly).toEqual([]);
  });

  it('gives up after the last attempt and says why', async () => {
    const { key } = await t.signup();
    const hook = await receiver(() => 503);
    const created = await endpoint(key, hook.url);
    await t.request('POST', `/v1/webhooks/${created.id}/test`, { token: key });
    const [listed] = await waitFor(
      'the failed delivery',
      async () => {
        const list = await deliveries(key, created.id, '?status=failed');
        return list.length ? list : null;
      },
      30_000,
    );
    expect(listed).toMatchObject({ attempts: 3, max_attempts: 3, response_status: 503, last_error: 'the receiver answered HTTP 503' });
    expect(hook.requests).toHaveLength(3);
  });

  it('drops the pending deliveries of a deleted endpoint instead of retrying them', async () => {
    const { key, account } = await t.signup();
    const hook = await receiver(() => 500);
    const created = await endpoint(key, hook.url);
    const queued = (await t.request('POST', `/v1/webhooks/${created.id}/test`, { token: key })).body;
    await waitFor('the first attempt', () => hook.requests.length === 1);
    expect((await t.request('DELETE', `/v1/webhooks/${created.id}`, { token: key })).status).toBe(204);
    const dropped = await waitFor('the dropped delivery', async () => {
      const row = await t.services.outbox.find(account.id, queued.id);
      return row?.status === 'failed' ? row : null;
    });
    expect(dropped).toMatchObject({ attempts: 2, last_error: 'dropped: the webhook endpoint was deleted' });
    await new Promise((resolve) => setTimeout(resolve, BACKOFF_BASE_MS * 5));
    expect(hook.requests).toHaveLength(1);
    expect((await t.request('GET', `/v1/webhooks/${created.id}/deliveries`, { token: key })).status).toBe(404);
  });

  it('drops the pending deliveries of a disabled endpoint, refuses to test it, and delivers again once enabled', async () => {
    const { key } = await t.signup();
    let failing = true;
    const hook = await receiver(() => (failing ? 500 : 200));
    const created = await endpoint(key, hook.url);
    await t.request('POST', `/v1/webhooks/${created.id}/test`, { token: key });
    await waitFor('the first attempt', () => hook.requests.length === 1);
    expect((await t.request('PATCH', `/v1/webhooks/${created.id}`, { token: key, body: { enabled: false } })).status).toBe(200);
    const [dropped] = await waitFor('the dropped delivery', async () => {
      const list = await deliveries(key, created.id, '?status=failed');
      return list.length ? list : null;
    });
    expect(dropped).toMatchObject({ attempts: 2, last_error: 'dropped: the webhook endpoint is disabled', response_status: null });
    expect(dropped.attempt_history.map((a: any) => a.status_code)).toEqual([500, null]);
    expect(hook.requests).toHaveLength(1);

    const refused = await t.request('POST', `/v1/webhooks/${created.id}/test`, { token: key });
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatch(/disabled/);

    failing = false;
    await t.request('PATCH', `/v1/webhooks/${created.id}`, { token: key, body: { enabled: true } });
    expect((await t.request('POST', `/v1/webhooks/${created.id}/test`, { token: key })).status).toBe(202);
    await waitFor('the delivery after enabling', () => hook.requests.length === 2);
    expect((await deliveries(key, created.id)).map((d: any) => d.status)).toEqual(['delivered', 'failed']);
  });

  it('signs with the rotated secret', async () => {
    const { key } = await t.signup();
    const hook = await receiver();
    const created = await endpoint(key, hook.url);
    const rotated = (await t.request('PATCH', `/v1/webhooks/${created.id}`, { token: key, body: { rotate_secret: true } })).body;
    await t.request('POST', `/v1/webhooks/${created.id}/test`, { token: key });
    const [request] = await waitFor('the delivery', () => (hook.requests.length ? hook.requests : null));
    expect(verified(rotated.secret, request)).toBe(true);
    expect(verified(created.secret, request)).toBe(false);
  });

  it("publishes any catalogue event in the caller's transaction: pushed when it commits, never when it rolls back", async () => {
    const { key, account } = await t.signup();
    const hook = await receiver();
    const created = await endpoint(key, hook.url, ['sandbox.error']);
    const event = (id: string, type: 'sandbox.error' | 'sandbox.destroyed') => ({
      id,
      type,
      accountId: account.id,
      occurredAt: new Date().toISOString(),
      data: { sandbox_id: 'sbx_x', reason: 'exit 137' },
    });
    await expect(
      t.storage.db.transaction().execute(async (trx) => {
        await t.services.webhooks.publisher.publish(trx, event('evt_rolled_back', 'sandbox.error'));
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    await t.storage.db.transaction().execute(async (trx) => {
      await t.services.webhooks.publisher.publish(trx, event('evt_not_subscribed', 'sandbox.destroyed'));
      await t.services.webhooks.publisher.publish(trx, event('evt_committed', 'sandbox.error'));
    });
    const [request] = await waitFor('the committed event', () => (hook.requests.length ? hook.requests : null));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(hook.requests).toHaveLength(1);
    expect(request.headers['webhook-id']).toBe('evt_committed');
    expect(verified(created.secret, request)).toBe(true);
    expect(JSON.parse(request.body)).toMatchObject({ type: 'sandbox.error', data: { sandbox_id: 'sbx_x', reason: 'exit 137' } });
    expect((await deliveries(key, created.id)).map((d: any) => d.event_id)).toEqual(['evt_committed']);
  });

  it('pushes a pipeline run’s spec events to the subscribed endpoints, in the timeline’s order', async () => {
    const { key } = await t.signup();
    const everything = await receiver();
    const failures = await receiver();
    const disabled = await receiver();
    const elsewhere = await receiver();
    const all = await endpoint(key, everything.url, ['*']);
    const onFailure = await endpoint(key, failures.url, ['pipeline.stage.failed', 'pipeline.run.failed', 'sandbox.error']);
    const off = await endpoint(key, disabled.url);
    await t.request('PATCH', `/v1/webhooks/${off.id}`, { token: key, body: { enabled: false } });
    const stranger = await t.signup();
    await endpoint(stranger.key, elsewhere.url);

    const pipeline = await createPipeline(t, key, {
      stages: [
        { name: 'check', type: 'gate', config: { expression: 'true' } },
        { name: 'verdict', type: 'gate', depends_on: ['check'], config: { expression: 'false' } },
      ],
    });
    const run = await startRun(t, key, pipeline.id);
    expect((await waitForRun(t, key, pipeline.id, run.id)).status).toBe('failed');

    const expected = [
      ['pipeline.run.created', undefined],
      ['pipeline.run.started', undefined],
      ['pipeline.stage.started', 'check'],
      ['pipeline.stage.completed', 'check'],
      ['pipeline.stage.started', 'verdict'],
      ['pipeline.stage.failed', 'verdict'],
      ['pipeline.run.failed', undefined],
    ];
    const received = await waitFor('every event', () => (everything.requests.length >= expected.length ? everything.requests : null));
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(everything.requests).toHaveLength(expected.length);
    expect(received.every((request) => verified(all.secret, request))).toBe(true);
    const bodies = received.map((request) => ({ id: request.headers['webhook-id'], ...JSON.parse(request.body) })).sort((a, b) => a.data.sequence - b.data.sequence);
    expect(bodies.map((body) => [body.type, body.data.stage])).toEqual(expected);
    expect(new Set(bodies.map((body) => body.id)).size).toBe(expected.length);
    for (const body of bodies) expect(body.data).toMatchObject({ run_id: run.id, pipeline_id: pipeline.id, pipeline_name: pipeline.name });

    // The payload is the run timeline's event: the same fields, at the same place in the timeline.
    const events = await timeline(t, key, pipeline.id, run.id);
    for (const body of bodies) {
      const event = events.find((e) => e.sequence === body.data.sequence)!;
      expect(event.type).toBe(body.type);
      expect(body.data).toEqual({ ...event.data, pipeline_id: pipeline.id, pipeline_name: pipeline.name, run_id: run.id, sequence: event.sequence, ...(event.stage ? { stage: event.stage } : {}) });
      expect(body.timestamp).toBe((event as any).timestamp);
    }
    expect(bodies.find((body) => body.type === 'pipeline.stage.failed').data).toMatchObject({ type: 'gate', error: expect.stringContaining('expression is false') });
    expect(bodies.at(-1).data).toMatchObject({ status: 'failed', error: expect.stringContaining('stage verdict failed') });

    await waitFor('the failure events', () => failures.requests.length === 2);
    expect(failures.requests.map((request) => JSON.parse(request.body).type).sort()).toEqual(['pipeline.run.failed', 'pipeline.stage.failed']);
    // The same event reaches every endpoint with the same webhook-id.
    const failedRunId = failures.requests.find((request) => JSON.parse(request.body).type === 'pipeline.run.failed')!.headers['webhook-id'];
    expect(bodies.find((body) => body.type === 'pipeline.run.failed').id).toBe(failedRunId);
    expect(disabled.requests).toHaveLength(0);
    expect(elsewhere.requests).toHaveLength(0);

    const listed = await deliveries(key, all.id, '?limit=100');
    expect(listed).toHaveLength(expected.length);
    expect(listed.every((delivery: any) => delivery.status === 'delivered' && delivery.response_status === 200)).toBe(true);
    expect(listed.map((delivery: any) => delivery.event_type).sort()).toEqual(expected.map(([type]) => type).sort());
    expect(await deliveries(key, off.id)).toEqual([]);
  });
});
