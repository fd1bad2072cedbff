// Two servers on one PostgreSQL database: intervals closed on either server and at the same time land in
// the usage exactly once, both servers answer the same usage, and their quota sweepers checking the same
// account at the same moment raise each alert once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMetering, stopMetering } from '../../src/billing/metering/service.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { seedSandbox } from '../helpers/sessions.js';

const HOUR = 3_600_000;
const ENV = { PADDOCK_QUOTA_CHECK_INTERVAL_MS: String(HOUR) };
const t0 = Date.parse('2026-10-01T00:00:00.000Z');
const at = (hours: number) => new Date(t0 + hours * HOUR).toISOString();

describe('billing on two servers sharing PostgreSQL', () => {
  let first: TestApp;
  let second: TestApp;

  beforeAll(async () => {
    first = await startApp('postgres', ENV);
    second = await startApp('postgres', { ...ENV, DATABASE_URL: first.databaseUrl! });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('counts an interval closed by both servers at once exactly once, and both answer the same usage', async () => {
    const { account } = await first.signupOnPlan('pro');
    const boxes = await Promise.all(Array.from({ length: 5 }, async () => ({ id: await seedSandbox(first, account.id), account_id: account.id, cpus: 1, memory_mb: 256 })));
    for (const [index, box] of boxes.entries()) await startMetering(first.storage.db, box, at(index));
    // Every interval is closed by both servers at the same time, at different instants: the first close wins.
    await Promise.all(boxes.flatMap((box, index) => [stopMetering(first.storage.db, box.id, at(index + 30)), stopMetering(second.storage.db, box.id, at(index + 31))]));
    const window = { start: at(0), end: at(24 * 20) };
    const [onFirst, onSecond] = await Promise.all([first.services.usage.usage(account.id, window, t0 + 100 * HOUR), second.services.usage.usage(account.id, window, t0 + 100 * HOUR)]);
    const rows = await first.storage.db.selectFrom('sandbox_usage').select(['started_at', 'ended_at']).where('account_id', '=', account.id).execute();
    const exact = rows.reduce((total, row) => total + (Date.parse(row.ended_at!) - Date.parse(row.started_at)) / HOUR, 0);
    expect(exact).toBeGreaterThanOrEqual(150);
    expect(exact).toBeLessThanOrEqual(155);
    expect(onFirst.computeHours).toBeCloseTo(exact, 9);
    expect(onSecond).toEqual(onFirst);
  });

  it("raises each quota alert once when both servers' sweepers check at the same moment", async () => {
    const { key, account } = await first.signupOnPlan('pro');
    const id = await seedSandbox(first, account.id);
    await startMetering(first.storage.db, { id, account_id: account.id, cpus: 1, memory_mb: 256 }, at(0));
    await Promise.all([first.services.quota.sweeper.runOnce(t0 + 100 * HOUR), second.services.quota.sweeper.runOnce(t0 + 100 * HOUR)]);
    const alerts = ((await first.request('GET', '/v1/alerts', { token: key })).body as any[]).map((alert) => alert.type).sort();
    expect(alerts).toEqual(['quota_exceeded', 'quota_warning']);
    expect(await second.services.quota.admission.refusal(account.id, 'pro', t0 + 101 * HOUR)).toMatch(/are used up/);
  });
});
