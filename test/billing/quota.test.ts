// The compute quota with a controllable clock: usage seeded as running intervals at chosen instants, the
// sweeper driven with runOnce(nowMs). 80 % raises quota_warning once, 100 % raises quota_exceeded once
// and refuses creates and resumes (plan_limit) until the next period or a bigger plan; a restart or a
// second server acting at the same time does not raise twice. Pausing real sandboxes at 100 % is in
// test/billing/runtime/quota-pause.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMetering } from '../../src/billing/metering/service.js';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { seedSandbox } from '../helpers/sessions.js';

const HOUR = 3_600_000;
// The server's own sweeper waits its full interval after start-up, so only the passes the tests drive act.
const ENV = { PADDOCK_QUOTA_CHECK_INTERVAL_MS: String(HOUR) };
const t0 = Date.parse('2026-10-01T00:00:00.000Z');
const PERIOD_END = '2026-11-01T00:00:00.000Z';

describe.each(BACKENDS)('compute quota on %s', (backend) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp(backend, ENV);
  });
  afterAll(async () => {
    await t?.close();
  });

  /** A pro account (100 compute hours) with `running` sandboxes charged from t0. */
  const proAccount = async (running = 1) => {
    const { key, account } = await t.signupOnPlan('pro');
    for (let i = 0; i < running; i++) {
      const id = await seedSandbox(t, account.id);
      await startMetering(t.storage.db, { id, account_id: account.id, cpus: 1, memory_mb: 256 }, new Date(t0).toISOString());
    }
    return { key, accountId: account.id as string };
  };
  const quotaAlerts = async (key: string) => {
    const reply = await t.request('GET', '/v1/alerts', { token: key });
    expect(reply.status).toBe(200);
    return (reply.body as any[]).filter((alert) => alert.type.startsWith('quota_'));
  };
  const sweepAt = (hours: number) => t.services.quota.sweeper.runOnce(t0 + hours * HOUR);

  it('raises nothing below 80 % and wakes when the warning is predicted, at hours left ÷ sandboxes running', async () => {
    const { key } = await proAccount(2);
    // 2 sandboxes for 39.5 h = 79 h used: 1 h to the 80 h warning at 2 h per hour.
    expect(await sweepAt(39.5)).toBeLessThanOrEqual(HOUR / 2);
    expect(await quotaAlerts(key)).toEqual([]);
  });

  it('raises one quota_warning about the account at 80 % of the plan hours, once', async () => {
    const { key, accountId } = await proAccount();
    await sweepAt(80);
    await sweepAt(81);
    const alerts = await quotaAlerts(key);
    expect(alerts).toEqual([
      expect.objectContaining({
        type: 'quota_warning',
        severity: 'warning',
        sandbox_id: null,
        resource: { kind: 'account', id: accountId },
        details: expect.objectContaining({ used_hours: 80, quota_hours: 100, plan: 'pro', period_end: PERIOD_END }),
      }),
    ]);
    expect(alerts[0].message).toMatch(/80 of the pro plan's 100 compute hours for the period ending 2026-11-01T00:00:00.000Z/);
    expect(await t.services.quota.admission.refusal(accountId, 'pro', t0 + 81 * HOUR)).toBeNull();
  });

  it('at 100 % raises quota_exceeded once, and the admission creates and resumes ask refuses with a message naming the plan, its hours and the period end', async () => {
    const { key, accountId } = await proAccount();
    await sweepAt(100);
    await sweepAt(101);
    const alerts = await quotaAlerts(key);
    expect(alerts.map((alert) => alert.type).sort()).toEqual(['quota_exceeded', 'quota_warning']);
    const exceeded = alerts.find((alert) => alert.type === 'quota_exceeded');
    expect(exceeded).toMatchObject({ severity: 'critical', resource: { kind: 'account', id: accountId } });
    expect(exceeded.message).toMatch(/paused \(not destroyed\)/);
    expect(await t.services.quota.admission.refusal(accountId, 'pro', t0 + 101 * HOUR)).toBe(
      "the pro plan's 100 compute hours for the period ending 2026-11-01T00:00:00.000Z are used up; running sandboxes were paused, not destroyed. Upgrade the plan, or wait for the next period, to create or resume sandboxes",
    );
  });

  it('raises each alert once when two servers (or a restarted one) check at the same time', async () => {
    const { key } = await proAccount();
    await Promise.all([sweepAt(100), sweepAt(100), sweepAt(100.5)]);
    expect((await quotaAlerts(key)).map((alert) => alert.type).sort()).toEqual(['quota_exceeded', 'quota_warning']);
  });

  it("raises the next period's warning even while the last period's is still open", async () => {
    const { key } = await proAccount();
    await sweepAt(80);
    // October has 744 hours: 80 h into November the sandbox, running all along, reaches 80 % again.
    await sweepAt(744 + 80);
    const alerts = await quotaAlerts(key);
    expect(alerts.map((alert) => [alert.type, alert.resolved, alert.details.period_end])).toEqual(
      expect.arrayContaining([
        ['quota_warning', true, PERIOD_END],
        ['quota_warning', false, '2026-12-01T00:00:00.000Z'],
      ]),
    );
    expect(alerts).toHaveLength(2);
  });

  it('admits again in the next period', async () => {
    const { accountId } = await proAccount();
    await sweepAt(100);
    expect(await t.services.quota.admission.refusal(accountId, 'pro', t0 + 101 * HOUR)).not.toBeNull();
    expect(await t.services.quota.admission.refusal(accountId, 'pro', Date.parse(PERIOD_END) + HOUR)).toBeNull();
  });

  it('lifts the block at once on a bigger plan, and a smaller plan is refused at its own hours', async () => {
    const { accountId } = await proAccount();
    await sweepAt(100);
    const now = t0 + 101 * HOUR;
    expect(await t.services.quota.admission.refusal(accountId, 'team', now)).toBeNull();
    expect(await t.services.quota.admission.refusal(accountId, 'enterprise', now)).toBeNull();
    expect(await t.services.quota.admission.refusal(accountId, 'free', now)).toMatch(/^the free plan's 10 compute hours for the period ending 2026-11-01T00:00:00.000Z are used up/);
  });

  it("follows the account's quota_warning rule threshold", async () => {
    const { key } = await proAccount();
    const rules = (await t.request('GET', '/v1/alerts/rules', { token: key })).body as any[];
    const warning = rules.find((rule) => rule.type === 'quota_warning');
    expect((await t.request('PUT', `/v1/alerts/rules/${warning.id}`, { token: key, body: { threshold: 0.5 } })).status).toBe(200);
    await sweepAt(49);
    expect(await quotaAlerts(key)).toEqual([]);
    await sweepAt(50);
    expect((await quotaAlerts(key)).map((alert) => alert.type)).toEqual(['quota_warning']);
  });

  it('never checks an account whose plan has unlimited compute hours', async () => {
    const { key, account } = await t.signupOnPlan('enterprise');
    const id = await seedSandbox(t, account.id);
    await startMetering(t.storage.db, { id, account_id: account.id, cpus: 1, memory_mb: 256 }, new Date(t0).toISOString());
    await sweepAt(24 * 30);
    expect(await quotaAlerts(key)).toEqual([]);
    expect(await t.services.quota.admission.refusal(account.id, 'enterprise', t0 + 24 * 30 * HOUR)).toBeNull();
  });
});
