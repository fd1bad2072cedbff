// Usage from the metering that exists: compute hours (one per running hour whatever the size, nothing
// while paused), compute cost at the configured rates, LLM cost of the account's sessions and sandboxes
// created, per UTC day and per period, exact against the raw intervals for periods that start mid-day.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMetering, stopMetering } from '../../src/billing/metering/service.js';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { event, ingest, seedSandbox } from '../helpers/sessions.js';

// 1 vCPU at 3.6 $/h = 0.001 $/s; 1 GiB at 3.6 $/h = 0.001 $/s.
const RATES = { PADDOCK_COMPUTE_USD_PER_VCPU_HOUR: '3.6', PADDOCK_COMPUTE_USD_PER_GIB_HOUR: '3.6' };
const HOUR = 3_600_000;
const t0 = Date.parse('2026-10-01T00:00:00.000Z');
const at = (hours: number) => new Date(t0 + hours * HOUR).toISOString();
const window = (fromHours: number, toHours: number) => ({ start: at(fromHours), end: at(toHours) });

describe.each(BACKENDS)('usage on %s', (backend) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp(backend, RATES);
  });
  afterAll(async () => {
    await t?.close();
  });

  const account = async () => (await t.signupOnPlan('pro')).account.id as string;
  const sandbox = async (accountId: string, size = { cpus: 1, memory_mb: 256 }) => ({ id: await seedSandbox(t, accountId), account_id: accountId, ...size });
  const run = async (box: { id: string; account_id: string; cpus: number; memory_mb: number }, fromHours: number, toHours: number | null) => {
    await startMetering(t.storage.db, box, at(fromHours));
    if (toHours !== null) await stopMetering(t.storage.db, box.id, at(toHours));
  };

  it('counts one compute hour per running hour whatever the sandbox size, and costs each size at the rates', async () => {
    const accountId = await account();
    await run(await sandbox(accountId), 1, 3); // 2 h at 1 vCPU + 0.25 GiB: 2 × 3600 × 0.00125 $
    await run(await sandbox(accountId, { cpus: 4, memory_mb: 4096 }), 2, 3); // 1 h at 4 vCPU + 4 GiB: 3600 × 0.008 $
    const usage = await t.services.usage.usage(accountId, window(0, 24 * 31), t0 + 100 * HOUR);
    expect(usage.computeHours).toBeCloseTo(3, 9);
    expect(usage.computeCostUsd).toBeCloseTo(2 * 3600 * 0.00125 + 3600 * 0.008, 9);
    expect(usage.llmCostUsd).toBe(0);
    expect(usage.totalCostUsd).toBeCloseTo(usage.computeCostUsd, 9);
  });

  it('counts nothing while paused and an open interval up to now', async () => {
    const accountId = await account();
    const box = await sandbox(accountId);
    await run(box, 0, 1); // paused from 1 h to 5 h
    await run(box, 5, null); // running since 5 h
    expect((await t.services.usage.usage(accountId, window(0, 48), t0 + 4 * HOUR)).computeHours).toBeCloseTo(1, 9);
    expect((await t.services.usage.usage(accountId, window(0, 48), t0 + 6.5 * HOUR)).computeHours).toBeCloseTo(2.5, 9);
  });

  it('counts only the part of an interval inside the window', async () => {
    const accountId = await account();
    await run(await sandbox(accountId), 10, 20);
    expect((await t.services.usage.usage(accountId, window(12, 15), t0 + 30 * HOUR)).computeHours).toBeCloseTo(3, 9);
    expect((await t.services.usage.usage(accountId, window(20, 40), t0 + 30 * HOUR)).computeHours).toBe(0);
  });

  it('splits running time at UTC midnight in the daily history, days without usage included', async () => {
    const accountId = await account();
    await run(await sandbox(accountId), 22, 50); // 2 h on Oct 1, 24 h on Oct 2, 2 h on Oct 3
    const days = await t.services.usage.daily(accountId, window(0, 96), t0 + 100 * HOUR);
    expect(days.map((day) => [day.date, Number(day.computeHours.toFixed(9))])).toEqual([
      ['2026-10-01', 2],
      ['2026-10-02', 24],
      ['2026-10-03', 2],
      ['2026-10-04', 0],
    ]);
  });

  it('matches the raw intervals exactly for a period that starts and ends mid-day, open intervals included', async () => {
    const accountId = await account();
    const boxes = [await sandbox(accountId), await sandbox(accountId, { cpus: 2, memory_mb: 1024 }), await sandbox(accountId, { cpus: 8, memory_mb: 8192 })];
    // Irregular intervals across several days; the last box is still running.
    const spans: [number, number | null][][] = [
      [
        [0.3, 7.9],
        [13.25, 40.5],
        [70.1, 70.2],
      ],
      [
        [5, 29],
        [47.75, 95.5],
      ],
      [
        [2, 3],
        [60.6, null],
      ],
    ];
    for (const [index, box] of boxes.entries()) for (const [from, to] of spans[index]!) await run(box, from, to);
    const nowMs = t0 + 90.125 * HOUR;
    const period = window(6.5, 80.75);
    const expectedHours = spans.flat().reduce((total, [from, to]) => total + Math.max(0, Math.min(to ?? 90.125, 80.75) - Math.max(from, 6.5)), 0);
    const expectedCost = await t.services.meter.computeCostUsd(
      boxes.map((box) => box.id),
      { nowMs, window: { fromMs: Date.parse(period.start), toMs: Date.parse(period.end) } },
    );
    const usage = await t.services.usage.usage(accountId, period, nowMs);
    expect(usage.computeHours).toBeCloseTo(expectedHours, 9);
    expect(usage.computeCostUsd).toBeCloseTo(expectedCost, 9);
    const days = await t.services.usage.daily(accountId, period, nowMs);
    expect(days.map((day) => day.date)).toEqual(['2026-10-01', '2026-10-02', '2026-10-03', '2026-10-04']);
    expect(days.reduce((total, day) => total + day.computeHours, 0)).toBeCloseTo(expectedHours, 9);
    // Two part-days and no whole day between them, and a window inside one day.
    for (const [from, to] of [
      [30.5, 53.25],
      [49.1, 49.9],
    ] as const) {
      const hours = spans.flat().reduce((total, [start, end]) => total + Math.max(0, Math.min(end ?? 90.125, to) - Math.max(start, from)), 0);
      expect((await t.services.usage.usage(accountId, window(from, to), nowMs)).computeHours).toBeCloseTo(hours, 9);
    }
  });

  it("adds the LLM cost of the account's sessions on the day each session was recorded, and counts sandboxes created per day", async () => {
    const { key, account: created } = await t.signupOnPlan('pro');
    const accountId = created.id as string;
    const box = await sandbox(accountId);
    await run(box, 30, 31);
    const llm = (cost: number) => ({ model: 'm', tokens_in: 1, tokens_out: 1, cost_usd: cost });
    expect((await ingest(t, key, [event(box.id, 's-1', 'llm_call', llm(0.25)), event(box.id, 's-1', 'llm_call', llm(0.5)), event(box.id, 's-2', 'llm_call', llm(2))])).status).toBe(200);
    await t.storage.db
      .updateTable('sessions')
      .set({ created_at: at(30) })
      .where('account_id', '=', accountId)
      .where('id', '=', 's-1')
      .execute();
    await t.storage.db
      .updateTable('sessions')
      .set({ created_at: at(60) })
      .where('account_id', '=', accountId)
      .where('id', '=', 's-2')
      .execute();
    await t.storage.db
      .updateTable('sandboxes')
      .set({ created_at: at(29.5) })
      .where('id', '=', box.id)
      .execute();
    const days = await t.services.usage.daily(accountId, window(24, 72), t0 + 80 * HOUR);
    expect(days.map((day) => [day.date, day.llmCostUsd, day.sandboxesCreated])).toEqual([
      ['2026-10-02', 0.75, 1],
      ['2026-10-03', 2, 0],
    ]);
    const usage = await t.services.usage.usage(accountId, window(24, 72), t0 + 80 * HOUR);
    expect(usage.llmCostUsd).toBeCloseTo(2.75, 12);
    expect(usage.totalCostUsd).toBeCloseTo(usage.computeCostUsd + 2.75, 12);
    expect(usage.sandboxesCreated).toBe(1);
    expect(usage.computeHours).toBeCloseTo(1, 9);
  });

  it("never counts another account's usage", async () => {
    const mine = await account();
    const theirs = await account();
    await run(await sandbox(theirs), 0, 5);
    expect(await t.services.usage.usage(mine, window(0, 24), t0 + 10 * HOUR)).toEqual({ computeHours: 0, computeCostUsd: 0, llmCostUsd: 0, totalCostUsd: 0, sandboxesCreated: 0 });
  });
});
