// Budgets end to end on real runtimes: a budget reached within seconds raises budget_warning,
// budget_critical and budget_exceeded in that order, destroys the sandbox, and calls on_budget_exceeded
// and on_complete on a real HTTP receiver with valid Standard Webhooks signatures. on_complete also fires
// (once) for a sandbox destroyed by DELETE or entering the error state, a fresh sweeper carries on from the
// database, and a callback to a private target is refused at delivery.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyWebhook } from '../../src/core/webhooks/signature.js';
import { BudgetSweeper } from '../../src/budgets/sweeper.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { startHttpReceiver, type HttpReceiver, type ReceivedRequest } from '../helpers/receivers.js';
import { waitFor } from '../helpers/wait-for.js';

const TEMPLATE = 'python-311';
// One vCPU costs 1 $ per second and memory nothing, so a 1.5 $ budget lasts 1.5 s of running time.
const RATES = { PADDOCK_COMPUTE_USD_PER_VCPU_HOUR: '3600', PADDOCK_COMPUTE_USD_PER_GIB_HOUR: '0' };
const BUDGET = 1.5;
// What the checks may overshoot by on a busy test machine: 0.4 s of running at 1 $/s (see docs/decisions.md).
const OVERSHOOT_ALLOWED = 0.4;
const COMBOS = [
  ['runc', 'sqlite'],
  ['gvisor', 'postgres'],
] as const;

function verified(request: ReceivedRequest, secret: string): boolean {
  const { 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature } = request.headers as Record<string, string>;
  return verifyWebhook(secret, id, Number(timestamp), request.body, signature);
}

describe.each(COMBOS)('sandbox budgets on %s with %s', (runtime, backend) => {
  let t: TestApp;
  let key: string;
  let hook: HttpReceiver;
  let secret: string;

  beforeAll(async () => {
    hook = await startHttpReceiver();
    t = await startApp(backend, { ...RATES, PADDOCK_ALLOW_PRIVATE_WEBHOOKS: 'true', PADDOCK_ALLOW_HTTP_WEBHOOKS: 'true', PADDOCK_OUTBOX_POLL_INTERVAL_MS: '50' }, { runtime });
    key = (await t.signupOnPlan('team')).key;
    secret = (await t.request('GET', '/v1/notifications/config', { token: key })).body.channels.webhook.secret;
  });
  afterAll(async () => {
    await t?.close();
    await hook?.close();
  });

  const create = (body: object) => t.request('POST', '/v1/sandboxes', { token: key, body: { template: TEMPLATE, network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1, ...body } });
  const callsTo = (path: string) => hook.requests.filter((r) => r.path === path);

  it('alerts in order, destroys the sandbox at its budget and calls both callbacks, signed', async () => {
    const created = await create({ budget: BUDGET, on_budget_exceeded: `${hook.url}/exceeded`, on_complete: `${hook.url}/complete` });
    expect(created.status).toBe(201);
    const id = created.body.id as string;

    const running = (await t.request('GET', `/v1/sandboxes/${id}`, { token: key })).body;
    expect(running).toMatchObject({ budget: BUDGET, on_complete: `${hook.url}/complete`, destroyed_reason: null });
    expect(running.spend_usd).toBeGreaterThanOrEqual(0);
    expect(running.spend_usd).toBeLessThan(BUDGET);

    const destroyed = await waitFor(
      'the budget to destroy the sandbox',
      async () => {
        const body = (await t.request('GET', `/v1/sandboxes/${id}`, { token: key })).body;
        return body.status === 'destroyed' ? body : null;
      },
      20_000,
    );
    expect(destroyed.destroyed_reason).toBe('budget_exceeded');
    expect(destroyed.spend_usd).toBeGreaterThanOrEqual(BUDGET);
    expect(destroyed.spend_usd).toBeLessThan(BUDGET + OVERSHOOT_ALLOWED);
    expect(destroyed.spend_usd).toBeCloseTo(destroyed.compute_cost_usd + destroyed.llm_cost_usd, 8);
    // Metering stopped with the sandbox: the spend no longer grows.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect((await t.request('GET', `/v1/sandboxes/${id}`, { token: key })).body.spend_usd).toBe(destroyed.spend_usd);

    const alerts = ((await t.request('GET', `/v1/alerts?sandbox_id=${id}`, { token: key })).body as any[]).sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
    expect(alerts.map((a) => [a.type, a.severity])).toEqual([
      ['budget_warning', 'warning'],
      ['budget_critical', 'critical'],
      ['budget_exceeded', 'critical'],
    ]);
    expect(alerts[0].details.fraction).toBeGreaterThanOrEqual(0.8);
    expect(alerts[1].details.fraction).toBeGreaterThanOrEqual(0.95);
    expect(alerts[2].details.fraction).toBeGreaterThanOrEqual(1);

    const exceeded = await waitFor('on_budget_exceeded', () => callsTo('/exceeded')[0]);
    expect(verified(exceeded, secret)).toBe(true);
    expect(JSON.parse(exceeded.body)).toMatchObject({ type: 'sandbox.budget_exceeded', data: { id, budget: BUDGET, action: 'destroyed' } });
    expect(JSON.parse(exceeded.body).data.spend_usd).toBeGreaterThanOrEqual(BUDGET);

    const complete = await waitFor('on_complete', () => callsTo('/complete')[0]);
    expect(verified(complete, secret)).toBe(true);
    expect(verified({ ...complete, body: complete.body.replace('budget_exceeded', 'deleted') }, secret)).toBe(false);
    const completed = JSON.parse(complete.body);
    expect(completed).toMatchObject({ type: 'sandbox.completed', data: { id, status: 'destroyed', reason: 'budget_exceeded', budget: BUDGET, ended_at: destroyed.destroyed_at } });
    expect(completed.data.spend_usd).toBe(destroyed.spend_usd);

    // DELETE after the budget destroyed it changes nothing and calls nothing again.
    expect((await t.request('DELETE', `/v1/sandboxes/${id}`, { token: key })).status).toBe(204);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(callsTo('/complete')).toHaveLength(1);
    expect(callsTo('/exceeded')).toHaveLength(1);
  });

  it('destroys on time a sandbox whose budget is smaller than what one check interval costs', async () => {
    // 0.3 USD is 0.3 s of running; the check interval (1 s) would cost 1 USD.
    const created = await create({ budget: 0.3 });
    expect(created.status).toBe(201);
    const destroyed = await waitFor('the budget to destroy the sandbox', async () => {
      const body = (await t.request('GET', `/v1/sandboxes/${created.body.id}`, { token: key })).body;
      return body.status === 'destroyed' ? body : null;
    });
    expect(destroyed.destroyed_reason).toBe('budget_exceeded');
    expect(destroyed.spend_usd).toBeGreaterThanOrEqual(0.3);
    expect(destroyed.spend_usd).toBeLessThan(0.3 + OVERSHOOT_ALLOWED);
  });

  it('continues from the database with a fresh sweeper (as after a restart): no alert twice, none lost', async () => {
    const quiet = { debug() {}, info() {}, warn() {}, error() {} };
    const fresh = () => new BudgetSweeper(t.services.sandboxes!, t.services.spend, t.services.alerts, 1000, quiet);
    await t.services.budgets!.stop();
    try {
      const created = await create({ budget: 3 });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      const spend = async () => (await t.request('GET', `/v1/sandboxes/${id}`, { token: key })).body.spend_usd as number;
      await waitFor('80 % of the budget', async () => (await spend()) >= 2.4);
      await fresh().sweep();
      const types = async () => ((await t.request('GET', `/v1/alerts?sandbox_id=${id}`, { token: key })).body as any[]).map((a) => a.type).sort();
      expect(await types()).toContain('budget_warning');
      // Past the budget while no sweeper runs; the next one only has the database to go on.
      await waitFor('the budget to be passed', async () => (await spend()) >= 3.2);
      const next = fresh();
      next.start();
      try {
        const destroyed = await waitFor('the fresh sweeper to destroy it', async () => {
          const body = (await t.request('GET', `/v1/sandboxes/${id}`, { token: key })).body;
          return body.status === 'destroyed' ? body : null;
        });
        expect(destroyed.destroyed_reason).toBe('budget_exceeded');
      } finally {
        await next.stop();
      }
      expect(await types()).toEqual(['budget_critical', 'budget_exceeded', 'budget_warning']);
    } finally {
      t.services.budgets!.start();
    }
  });

  it('calls on_complete when the sandbox enters the error state, and stops charging it', async () => {
    const created = await create({ init_script: 'sleep 0.3; exit 3', on_complete: `${hook.url}/failed` });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const call = await waitFor('on_complete', () => callsTo('/failed')[0], 60_000);
    expect(verified(call, secret)).toBe(true);
    const data = JSON.parse(call.body).data;
    expect(data).toMatchObject({ id, status: 'error', reason: 'error', error: expect.stringMatching(/init_script exited with 3/) });
    const failed = (await t.request('GET', `/v1/sandboxes/${id}`, { token: key })).body;
    expect(failed.status).toBe('error');
    expect(failed.spend_usd).toBe(data.spend_usd);
    expect(failed.spend_usd).toBeGreaterThan(0.3);
    // Destroying the errored sandbox later does not call on_complete again.
    expect((await t.request('DELETE', `/v1/sandboxes/${id}`, { token: key })).status).toBe(204);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(callsTo('/failed')).toHaveLength(1);
    expect((await t.request('GET', `/v1/sandboxes/${id}`, { token: key })).body).toMatchObject({ status: 'destroyed', destroyed_reason: 'deleted', spend_usd: failed.spend_usd });
  });

  it('calls on_complete once when the sandbox is deleted', async () => {
    const created = await create({ on_complete: `${hook.url}/deleted` });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    expect((await t.request('DELETE', `/v1/sandboxes/${id}`, { token: key })).status).toBe(204);
    expect((await t.request('DELETE', `/v1/sandboxes/${id}`, { token: key })).status).toBe(204);
    const call = await waitFor('on_complete', () => callsTo('/deleted')[0]);
    expect(verified(call, secret)).toBe(true);
    expect(JSON.parse(call.body)).toMatchObject({ type: 'sandbox.completed', data: { id, status: 'destroyed', reason: 'deleted', budget: null } });
    const after = (await t.request('GET', `/v1/sandboxes/${id}`, { token: key })).body;
    expect(after).toMatchObject({ status: 'destroyed', destroyed_reason: 'deleted' });
    expect(after.compute_cost_usd).toBeGreaterThan(0);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(callsTo('/deleted')).toHaveLength(1);
  });
});

describe('sandbox callbacks to private targets with runc on sqlite', () => {
  let t: TestApp;
  let key: string;

  beforeAll(async () => {
    t = await startApp('sqlite', { PADDOCK_OUTBOX_POLL_INTERVAL_MS: '50' }, { runtime: 'runc' });
    key = (await t.signupOnPlan('team')).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses at delivery a host name that resolves to a loopback address', async () => {
    const created = await t.request('POST', '/v1/sandboxes', {
      token: key,
      body: { template: TEMPLATE, network_mode: 'none', cpus: 1, memory_mb: 256, disk_gb: 1, on_complete: 'https://localhost:9/done' },
    });
    expect(created.status).toBe(201);
    expect((await t.request('DELETE', `/v1/sandboxes/${created.body.id}`, { token: key })).status).toBe(204);
    const row = await waitFor('the callback to fail', async () => {
      const delivery = await t.storage.db.selectFrom('outbox').selectAll().where('source_id', '=', created.body.id).executeTakeFirst();
      return delivery?.status === 'failed' ? delivery : null;
    });
    expect(row.kind).toBe('sandbox.callback');
    expect(row.attempts).toBe(1);
    expect(row.last_error).toMatch(/non-public address 127\.0\.0\.1/);
  });
});
