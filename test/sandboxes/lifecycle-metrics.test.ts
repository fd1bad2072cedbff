// The metrics consumer registered with the sandbox lifecycle: real creates (one from the warm pool, one
// started cold), execs and destroys on runc show in the create, exec and destroy histograms and the
// warm-pool counter, matching the sandboxes' own lifecycle timelines; on SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { waitFor } from '../helpers/wait-for.js';
import { parseExposition, valueOf } from '../metrics/exposition.js';

const TEMPLATE = 'python-311';

describe.each(BACKENDS)('sandbox lifecycle metrics with runc on %s', (backend) => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startApp(backend, { PADDOCK_METRICS_LISTEN: '127.0.0.1:0', PADDOCK_WARM_POOL: `${TEMPLATE}:1` }, { runtime: 'runc' });
    key = (await t.signupOnPlan('team')).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  async function scrape() {
    const response = await fetch(`http://127.0.0.1:${t.services.metrics.address()!.port}/metrics`);
    expect(response.status).toBe(200);
    return parseExposition(await response.text());
  }
  const create = async (body: object) => {
    const reply = await t.request('POST', '/v1/sandboxes', { token: key, body: { template: TEMPLATE, cpus: 1, memory_mb: 256, ...body } });
    expect(reply.status, reply.text).toBe(201);
    return reply.body.id as string;
  };
  const createdEvent = async (id: string) => {
    const reply = await t.request('GET', `/v1/sandboxes/${id}/events`, { token: key });
    expect(reply.status, reply.text).toBe(200);
    const events = (Array.isArray(reply.body) ? reply.body : reply.body.events) as any[];
    return events.find((event) => event.type === 'sandbox.created');
  };

  it('observes creates (warm and cold), execs by outcome and destroys', async () => {
    await waitFor('the warm pool to hold one sandbox', () => t.runtime!.warmPoolStatus!()[0].ready.length === 1, 60_000);
    const warm = await create({});
    const cold = await create({ network_mode: 'none', disk_gb: 1 });
    const warmEvent = await createdEvent(warm);
    const coldEvent = await createdEvent(cold);
    expect(warmEvent.data.warm).toBe(true);
    expect(coldEvent.data.warm).toBe(false);

    const exec = (id: string, command: string) => t.request('POST', `/v1/sandboxes/${id}/exec`, { token: key, body: { command } });
    expect((await exec(warm, 'true')).body.exit_code).toBe(0);
    expect((await exec(cold, 'exit 3')).body.exit_code).toBe(3);
    for (const id of [warm, cold]) expect((await t.request('DELETE', `/v1/sandboxes/${id}`, { token: key })).status).toBe(204);

    const families = await scrape();
    expect(valueOf(families, 'paddock_warm_pool_claims_total', { result: 'hit' })).toBe(1);
    expect(valueOf(families, 'paddock_warm_pool_claims_total', { result: 'miss' })).toBe(1);
    expect(valueOf(families, 'paddock_sandbox_create_duration_seconds_count', { warm: 'true' })).toBe(1);
    expect(valueOf(families, 'paddock_sandbox_create_duration_seconds_count', { warm: 'false' })).toBe(1);
    expect(valueOf(families, 'paddock_sandbox_create_duration_seconds_sum', { warm: 'false' })).toBeCloseTo(coldEvent.data.duration_ms / 1000, 3);
    expect(valueOf(families, 'paddock_sandbox_exec_duration_seconds_count', { outcome: 'exit_zero' })).toBe(1);
    expect(valueOf(families, 'paddock_sandbox_exec_duration_seconds_count', { outcome: 'exit_nonzero' })).toBe(1);
    expect(valueOf(families, 'paddock_sandbox_destroy_duration_seconds_count')).toBe(2);
    expect(valueOf(families, 'paddock_sandbox_events_total', { type: 'sandbox.created' })).toBe(2);
    expect(valueOf(families, 'paddock_sandbox_events_total', { type: 'sandbox.destroyed' })).toBe(2);
  });
});
