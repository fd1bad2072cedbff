// GET /metrics on its own listener (PADDOCK_METRICS_LISTEN), on SQLite and PostgreSQL: the scrape is
// valid Prometheus exposition, counts real requests by route pattern and status, rate-limit refusals,
// the outbox's backlog and failures and pipeline stage attempts; no key reads it on the API port.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { startHttpReceiver, type HttpReceiver } from '../helpers/receivers.js';
import { waitFor } from '../helpers/wait-for.js';
import { createPipeline, startRun, waitForRun } from '../helpers/pipelines.js';
import { parseExposition, valueOf } from './exposition.js';

const FREE_LIMIT = 5;

describe.each(BACKENDS)('metrics on %s', (backend) => {
  let t: TestApp;
  let metricsUrl: string;
  const receivers: HttpReceiver[] = [];

  beforeAll(async () => {
    t = await startApp(backend, {
      PADDOCK_METRICS_LISTEN: '127.0.0.1:0',
      PADDOCK_RATE_LIMIT_FREE: String(FREE_LIMIT),
      PADDOCK_ALLOW_PRIVATE_WEBHOOKS: 'true',
      PADDOCK_ALLOW_HTTP_WEBHOOKS: 'true',
      PADDOCK_OUTBOX_POLL_INTERVAL_MS: '50',
      PADDOCK_OUTBOX_BACKOFF_BASE_MS: '600000',
      PADDOCK_PIPELINE_POLL_INTERVAL_MS: '50',
    });
    const address = t.services.metrics.address();
    expect(address).not.toBeNull();
    metricsUrl = `http://127.0.0.1:${address!.port}/metrics`;
  });
  afterAll(async () => {
    await t?.close();
    for (const receiver of receivers) await receiver.close();
  });

  async function scrape() {
    const response = await fetch(metricsUrl);
    expect(response.status).toBe(200);
    const text = await response.text();
    return { response, text, families: parseExposition(text) };
  }

  it('answers Prometheus text exposition with HELP and TYPE for every metric, process metrics included', async () => {
    const { response, families } = await scrape();
    expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
    for (const name of [
      'paddock_http_requests_total',
      'paddock_http_request_duration_seconds',
      'paddock_rate_limit_refusals_total',
      'paddock_sandbox_create_duration_seconds',
      'paddock_sandbox_exec_duration_seconds',
      'paddock_sandbox_destroy_duration_seconds',
      'paddock_warm_pool_claims_total',
      'paddock_sandbox_events_total',
      'paddock_pipeline_stage_attempts',
      'paddock_pipeline_stage_queue_depth',
      'paddock_pipeline_stages_running',
      'paddock_outbox_backlog',
      'paddock_outbox_failed_deliveries',
      'paddock_outbox_failed_attempts',
      'process_cpu_user_seconds_total',
      'nodejs_heap_size_used_bytes',
    ]) {
      expect(families.get(name)?.help, name).toBeTruthy();
    }
    expect(families.get('paddock_http_requests_total')!.type).toBe('counter');
    expect(families.get('paddock_http_request_duration_seconds')!.type).toBe('histogram');
    expect(valueOf(families, 'paddock_warm_pool_claims_total', { result: 'hit' })).toBe(0);
  });

  it('counts requests by route pattern, method and status, never by raw URL', async () => {
    const { key } = await t.signupOnPlan('pro');
    const before = (await scrape()).families;
    const labels = { route: '/v1/pipelines/:id', method: 'GET', status_code: '404' };
    const already = valueOf(before, 'paddock_http_requests_total', labels) ?? 0;
    for (const id of ['pl_metrics_one', 'pl_metrics_two', 'pl_metrics_three']) expect((await t.request('GET', `/v1/pipelines/${id}`, { token: key })).status).toBe(404);
    expect((await t.request('GET', '/v1/pipelines', { token: key })).status).toBe(200);
    expect((await t.request('GET', '/no/such/route')).status).toBe(404);

    const { text, families } = await scrape();
    expect(valueOf(families, 'paddock_http_requests_total', labels)).toBe(already + 3);
    expect(valueOf(families, 'paddock_http_request_duration_seconds_count', labels)).toBe(already + 3);
    expect(valueOf(families, 'paddock_http_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(already + 3);
    expect(valueOf(families, 'paddock_http_requests_total', { route: '/v1/pipelines', method: 'GET', status_code: '200' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(families, 'paddock_http_requests_total', { route: 'unmatched', method: 'GET', status_code: '404' })).toBeGreaterThanOrEqual(1);
    expect(valueOf(families, 'paddock_http_requests_total', { route: '/signup', method: 'POST', status_code: '201' })).toBeGreaterThanOrEqual(1);
    expect(text).not.toContain('pl_metrics_one');
    expect(text).not.toContain('/no/such/route');
  });

  it('counts a request refused by the plan rate limit', async () => {
    const { key } = await t.signup();
    const before = valueOf((await scrape()).families, 'paddock_rate_limit_refusals_total', { limiter: 'plan_free' }) ?? 0;
    const statuses: number[] = [];
    for (let i = 0; i <= FREE_LIMIT; i++) statuses.push((await t.request('GET', '/v1/pipelines', { token: key })).status);
    expect(statuses.at(-1)).toBe(429);
    expect(statuses.filter((status) => status === 429)).toHaveLength(1);

    const { families } = await scrape();
    expect(valueOf(families, 'paddock_rate_limit_refusals_total', { limiter: 'plan_free' })).toBe(before + 1);
    expect(valueOf(families, 'paddock_http_requests_total', { route: '/v1/pipelines', method: 'GET', status_code: '429' })).toBeGreaterThanOrEqual(1);
  });

  it("shows the outbox's backlog for a receiver that keeps failing, and a delivery given up as failed", async () => {
    const failing = await startHttpReceiver(() => 500);
    const gone = await startHttpReceiver(() => 410);
    receivers.push(failing, gone);
    const { key, account } = await t.signupOnPlan('pro');
    const config = await t.request('PUT', '/v1/notifications/config', {
      token: key,
      body: { channels: { webhook: { enabled: true, url: failing.url }, chat_a: { enabled: true, webhook_url: gone.url } } },
    });
    expect(config.status, config.text).toBe(200);
    await t.services.alerts.raise({ accountId: account.id, type: 'sandbox_error', resource: { kind: 'sandbox', id: 'sbx_metrics' }, sandboxId: 'sbx_metrics', message: 'sandbox sbx_metrics failed' });
    await waitFor('both receivers to be called', () => failing.requests.length >= 1 && gone.requests.length >= 1);

    const families = await waitFor('the failed attempts in the scrape', async () => {
      const { families } = await scrape();
      return valueOf(families, 'paddock_outbox_failed_attempts', { kind: 'notification.webhook' }) === 1 && valueOf(families, 'paddock_outbox_failed_deliveries', { kind: 'notification.chat_a' }) === 1
        ? families
        : null;
    });
    // The webhook waits for its retry (10 minutes away): still owed. The 410 is not retried.
    expect(valueOf(families, 'paddock_outbox_backlog', { kind: 'notification.webhook' })).toBe(1);
    expect(valueOf(families, 'paddock_outbox_backlog', { kind: 'notification.chat_a' })).toBeUndefined();
    expect(valueOf(families, 'paddock_outbox_failed_deliveries', { kind: 'notification.webhook' })).toBeUndefined();
    expect(valueOf(families, 'paddock_outbox_failed_attempts', { kind: 'notification.chat_a' })).toBe(1);
  });

  it('counts stage attempts by type and outcome, and a stage waiting for its retry in the queue', async () => {
    const { key } = await t.signupOnPlan('pro');
    const gate = (name: string, expression: string, extra: Record<string, unknown> = {}) => ({ name, type: 'gate', config: { expression }, ...extra });
    const before = (await scrape()).families;
    const succeeded = valueOf(before, 'paddock_pipeline_stage_attempts', { type: 'gate', outcome: 'succeeded' }) ?? 0;
    const failed = valueOf(before, 'paddock_pipeline_stage_attempts', { type: 'gate', outcome: 'failed' }) ?? 0;

    const passing = await createPipeline(t, key, { stages: [gate('a', 'true'), gate('b', 'true', { depends_on: ['a'] })] });
    expect((await waitForRun(t, key, passing.id, (await startRun(t, key, passing.id)).id)).status).toBe('succeeded');
    const retrying = await createPipeline(t, key, { stages: [gate('flaky', 'false', { retry: { max_attempts: 2, backoff: '1h', max_backoff: '1h' } })] });
    const run = await startRun(t, key, retrying.id);
    await waitForRun(t, key, retrying.id, run.id, (r) => r.stages[0].attempt === 1 && r.stages[0].status === 'pending');

    const { families } = await scrape();
    expect(families.get('paddock_pipeline_stage_attempts')!.type).toBe('gauge');
    expect(valueOf(families, 'paddock_pipeline_stage_attempts', { type: 'gate', outcome: 'succeeded' })).toBe(succeeded + 2);
    expect(valueOf(families, 'paddock_pipeline_stage_attempts', { type: 'gate', outcome: 'failed' })).toBe(failed + 1);
    expect(valueOf(families, 'paddock_pipeline_stage_queue_depth', { type: 'gate' })).toBe(1);
    expect(valueOf(families, 'paddock_pipeline_stages_running', { type: 'gate' })).toBeUndefined();

    expect((await t.request('POST', `/v1/pipelines/${retrying.id}/runs/${run.id}/cancel`, { token: key })).status).toBe(204);
    expect(valueOf((await scrape()).families, 'paddock_pipeline_stage_queue_depth', { type: 'gate' })).toBeUndefined();
  });

  it('is not served on the API port, whatever the key, and its listener serves nothing else', async () => {
    const { key } = await t.signupOnPlan('pro');
    for (const token of [key, undefined]) {
      const reply = await t.request('GET', '/metrics', { token });
      expect(reply.status).toBe(404);
      expect(reply.text).not.toContain('paddock_');
    }
    const openapi = await t.request('GET', '/openapi.json');
    expect(Object.keys(openapi.body.paths)).not.toContain('/metrics');

    const other = await fetch(metricsUrl.replace('/metrics', '/v1/sandboxes'));
    expect(other.status).toBe(404);
    expect(await other.text()).toMatch(/serves only GET \/metrics/);
    const post = await fetch(metricsUrl, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('metrics listener off by default', () => {
  it('serves no metrics when PADDOCK_METRICS_LISTEN is not set', async () => {
    const t = await startApp('sqlite');
    try {
      expect(t.config.metricsListen).toBeNull();
      expect(t.services.metrics.address()).toBeNull();
      expect((await t.request('GET', '/metrics')).status).toBe(404);
    } finally {
      await t.close();
    }
  });
});
