// Compute metering against the real database: intervals opened and closed by the two metering functions,
// nothing charged between a stop and the next start (a pause), the cost of a set of sandboxes, and the
// compute a session is charged for its span.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMetering, stopMetering } from '../../src/billing/metering/service.js';
import { BACKENDS } from '../helpers/backends.js';
import { startApp, type TestApp } from '../helpers/app.js';
import { event, ingest, seedSandbox } from '../helpers/sessions.js';

// 1 vCPU at 3.6 $/h = 0.001 $/s; 1 GiB at 3.6 $/h = 0.001 $/s. Seeded sandboxes have 1 vCPU and 256 MiB.
const RATES = { PADDOCK_COMPUTE_USD_PER_VCPU_HOUR: '3.6', PADDOCK_COMPUTE_USD_PER_GIB_HOUR: '3.6' };
const PER_SECOND = 0.001 + 0.25 * 0.001;
const t0 = Date.parse('2026-11-01T00:00:00.000Z');
const at = (seconds: number) => new Date(t0 + seconds * 1000).toISOString();

describe.each(BACKENDS)('compute metering on %s', (backend) => {
  let t: TestApp;
  let accountId: string;
  let key: string;

  beforeAll(async () => {
    t = await startApp(backend, RATES);
    const signed = await t.signupOnPlan('enterprise');
    accountId = signed.account.id;
    key = signed.key;
  });
  afterAll(async () => {
    await t?.close();
  });

  const sandbox = async () => {
    const id = await seedSandbox(t, accountId);
    return { id, account_id: accountId, cpus: 1, memory_mb: 256 };
  };

  it('charges running time only: nothing between stop and the next start', async () => {
    const box = await sandbox();
    const { meter, storage } = { meter: t.services.meter, storage: t.storage };
    await startMetering(storage.db, box, at(0));
    await startMetering(storage.db, box, at(5)); // already running: no second interval
    await stopMetering(storage.db, box.id, at(10)); // paused
    await stopMetering(storage.db, box.id, at(20)); // already stopped: nothing changes
    const whilePaused = (await meter.ofSandboxes([box.id], { nowMs: t0 + 100_000 })).get(box.id)!;
    expect(whilePaused.costUsd).toBeCloseTo(10 * PER_SECOND, 10);
    expect(whilePaused.usdPerSecond).toBe(0);

    await startMetering(storage.db, box, at(100)); // resumed
    const resumed = (await meter.ofSandboxes([box.id], { nowMs: t0 + 104_000 })).get(box.id)!;
    expect(resumed.costUsd).toBeCloseTo(14 * PER_SECOND, 10);
    expect(resumed.usdPerSecond).toBeCloseTo(PER_SECOND, 12);
    const rows = await storage.db.selectFrom('sandbox_usage').selectAll().where('sandbox_id', '=', box.id).orderBy('started_at').execute();
    expect(rows.map((r) => [r.started_at, r.ended_at])).toEqual([
      [at(0), at(10)],
      [at(100), null],
    ]);
  });

  it('answers the compute cost of a set of sandboxes', async () => {
    const a = await sandbox();
    const b = await sandbox();
    const idle = await sandbox();
    await startMetering(t.storage.db, a, at(0));
    await stopMetering(t.storage.db, a.id, at(4));
    await startMetering(t.storage.db, b, at(0));
    await stopMetering(t.storage.db, b.id, at(6));
    expect(await t.services.meter.computeCostUsd([a.id, b.id, idle.id], { nowMs: t0 + 60_000 })).toBeCloseTo(10 * PER_SECOND, 10);
    expect(await t.services.meter.computeCostUsd([], { nowMs: t0 })).toBe(0);
  });

  it("charges a session the sandbox compute of its span and adds its LLM cost to the sandbox's spend", async () => {
    const box = await sandbox();
    const started = Date.now() - 60_000;
    await startMetering(t.storage.db, box, new Date(started).toISOString());
    await stopMetering(t.storage.db, box.id, new Date(started + 30_000).toISOString());
    // The session runs from 20 s to 40 s: 10 s of it overlap the 30 s the sandbox ran.
    const first = new Date(started + 20_000).toISOString();
    const last = new Date(started + 40_000).toISOString();
    const reply = await ingest(t, key, [
      event(box.id, 'metered-session', 'llm_call', { model: 'm', tokens_in: 1, tokens_out: 1, cost_usd: 0.25 }, { timestamp: first }),
      event(box.id, 'metered-session', 'lifecycle', { status: 'completed' }, { timestamp: last }),
    ]);
    expect(reply.body).toMatchObject({ accepted: 2, errors: 0 });
    const session = (await t.request('GET', '/v1/sessions/metered-session', { token: key })).body;
    expect(session.compute_cost_usd).toBeCloseTo(10 * PER_SECOND, 8);
    expect(session.cost_usd).toBeCloseTo(0.25 + 10 * PER_SECOND, 8);
    const summary = (await t.request('GET', '/v1/sessions/metered-session/replay/summary', { token: key })).body;
    expect(summary.compute_cost_usd).toBeCloseTo(10 * PER_SECOND, 8);

    const spend = await t.services.spend.ofOne(box.id);
    expect(spend.computeUsd).toBeCloseTo(30 * PER_SECOND, 8);
    expect(spend.llmUsd).toBeCloseTo(0.25, 10);
    expect(spend.totalUsd).toBeCloseTo(0.25 + 30 * PER_SECOND, 8);
  });
});
