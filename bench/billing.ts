// Billing: GET /v1/billing/usage (and /v1/billing/subscription where it exists) for an account with
// 10,000 metered intervals this period against GET /v1/account in the same run, and the compute-quota
// admission check against a create's admission without it (no runtime, SQLite).
import fs from 'node:fs';
import type { Kysely } from 'kysely';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../src/app.js';
import { startMetering, stopMetering } from '../src/billing/metering/service.js';
import { databaseFile, loadConfig } from '../src/config.js';
import type { Database } from '../src/core/db/schema.js';
import { openStorage } from '../src/core/db/database.js';
import { migrateToLatest } from '../src/core/db/migrate.js';
import { countLiveSandboxes } from '../src/sandboxes/store.js';
import { sandboxRecord } from '../test/helpers/sandbox-record.js';
import { latencies } from './api.js';
import type { BenchRow } from './table.js';

const INTERVALS = Number(process.env.BENCH_BILLING_INTERVALS ?? 10_000);
const SANDBOXES = 100;
const OPEN = 5;
const ADMISSIONS = Number(process.env.BENCH_BILLING_ADMISSIONS ?? 3000);

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function benchBilling(): Promise<BenchRow[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-bench-'));
  const config = loadConfig({ PADDOCK_DATA: dataDir, PADDOCK_LOG_LEVEL: 'warn', PADDOCK_RATE_LIMIT_PRO: '1000000', PADDOCK_QUOTA_CHECK_INTERVAL_MS: '3600000' });
  const storage = openStorage({ databaseUrl: null, sqliteFile: databaseFile(config) });
  await migrateToLatest(storage.db);
  const { app, services } = await buildApp({ config, storage });
  const { api_key, account } = await services.accounts.signup({ email: 'bench@example.com', password: 'bench password' }, 'pro');
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  try {
    await seedIntervals(storage.db, account.id);
    const auth = { authorization: `Bearer ${api_key}` };
    const check = await fetch(`${base}/v1/billing/usage`, { headers: auth });
    if (check.status !== 200) throw new Error(`GET /v1/billing/usage answered ${check.status}`);
    const hours = ((await check.json()) as { totals: { compute_hours: number } }).totals.compute_hours;
    await latencies(`${base}/v1/account`, auth, 500); // warm-up
    const accountLatency = await latencies(`${base}/v1/account`, auth);
    const usageLatency = await latencies(`${base}/v1/billing/usage`, auth);
    const note = `${INTERVALS} intervals, ${hours.toFixed(1)} h this period`;
    const rows: BenchRow[] = [{ what: `GET /v1/billing/usage p50 vs GET /v1/account (${note})`, ours: usageLatency.p50, baseline: accountLatency.p50, unit: 'ms', better: 'lower', goal: '≤ 3×' }];
    if ((await fetch(`${base}/v1/billing/subscription`, { headers: auth })).status === 200) {
      const subscription = await latencies(`${base}/v1/billing/subscription`, auth);
      rows.push({ what: `GET /v1/billing/subscription p50 vs GET /v1/account (${note})`, ours: subscription.p50, baseline: accountLatency.p50, unit: 'ms', better: 'lower', goal: '≤ 3×' });
    }

    // The admission a create runs (the account's lock and the live-sandbox count, in one transaction), with and without the quota check before it.
    const admission = () =>
      storage.db.transaction().execute(async (trx) => {
        await services.accounts.lockForPlanCheck(trx, account.id);
        await countLiveSandboxes(trx, account.id);
      });
    const without: number[] = [];
    const withQuota: number[] = [];
    const quotaAlone: number[] = [];
    for (let i = 0; i < ADMISSIONS; i++) {
      let start = process.hrtime.bigint();
      await admission();
      without.push(Number(process.hrtime.bigint() - start) / 1e6);
      start = process.hrtime.bigint();
      await services.quota.admission.refusal(account.id, 'pro');
      const afterQuota = process.hrtime.bigint();
      await admission();
      withQuota.push(Number(process.hrtime.bigint() - start) / 1e6);
      quotaAlone.push(Number(afterQuota - start) / 1e6);
    }
    rows.push(
      { what: 'create admission with the compute-quota check vs without (median, in process)', ours: median(withQuota), baseline: median(without), unit: 'ms', better: 'lower', goal: '+≤ 1 ms' },
      { what: 'the compute-quota check alone vs the admission without it (median)', ours: median(quotaAlone), baseline: median(without), unit: 'ms', better: 'lower', goal: '≤ 1 ms' },
    );
    return rows;
  } finally {
    await app.close();
    await storage.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** INTERVALS closed intervals spread over this month so far across SANDBOXES sandboxes, through the real metering calls (so the rollup is written as in production), plus OPEN running ones. */
export async function seedIntervals(db: Kysely<Database>, accountId: string): Promise<void> {
  const now = Date.now();
  const monthStart = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1);
  const perSandbox = Math.ceil(INTERVALS / SANDBOXES);
  const slotMs = (now - 60_000 - monthStart) / perSandbox;
  const iso = (ms: number) => new Date(Math.floor(ms)).toISOString();
  for (let s = 0; s < SANDBOXES; s++) {
    const at = iso(monthStart);
    const record = sandboxRecord(accountId, { status: s < OPEN ? 'running' : 'destroyed', template: 'minimal', created_at: at, updated_at: at, last_activity_at: at });
    const id = record.id;
    await db.insertInto('sandboxes').values(record).execute();
    const sandbox = { id, account_id: accountId, cpus: 1, memory_mb: 256 };
    await db.transaction().execute(async (trx) => {
      for (let i = 0; i < perSandbox; i++) {
        const startMs = monthStart + i * slotMs + (s * slotMs) / (2 * SANDBOXES);
        await startMetering(trx, sandbox, iso(startMs));
        await stopMetering(trx, id, iso(startMs + slotMs / 3));
      }
      if (s < OPEN) await startMetering(trx, sandbox, iso(now - 30_000));
    });
  }
}
