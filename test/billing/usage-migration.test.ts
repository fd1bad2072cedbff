// Upgrading a database that already holds metered intervals (0019): the per-day rollup is backfilled
// from every closed interval (split at UTC midnight), so usage read after the upgrade is the same as before.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseFile, loadConfig } from '../../src/config.js';
import { openStorage, type Storage } from '../../src/core/db/database.js';
import { migrateTo } from '../../src/core/db/migrate.js';
import { BACKENDS, createPgDatabase, dropPgDatabase } from '../helpers/backends.js';
import type { TestApp } from '../helpers/app.js';
import { seedSandbox } from '../helpers/sessions.js';

const NOW = '2026-10-05T00:00:00.000Z';

async function seedIntervals(db: Kysely<any>): Promise<void> {
  await db
    .insertInto('accounts')
    .values({ id: 'acc_old', email: 'old@example.com', email_normalized: 'old@example.com', name: null, password_hash: 'x', plan: 'pro', created_at: NOW, updated_at: NOW })
    .execute();
  const sandboxId = await seedSandbox({ storage: { db } } as unknown as TestApp, 'acc_old');
  const interval = (id: string, cpus: number, startedAt: string, endedAt: string | null) => ({
    id,
    sandbox_id: sandboxId,
    account_id: 'acc_old',
    cpus,
    memory_mb: 512,
    started_at: startedAt,
    ended_at: endedAt,
  });
  await db
    .insertInto('sandbox_usage')
    .values([
      interval('use_1', 1, '2026-10-01T23:00:00.000Z', '2026-10-02T02:00:00.000Z'),
      interval('use_2', 2, '2026-10-02T10:00:00.000Z', '2026-10-02T10:30:00.000Z'),
      interval('use_3', 1, '2026-10-03T10:00:00.000Z', null),
    ])
    .execute();
}

describe.each(BACKENDS)('usage rollup migration on %s', (backend) => {
  let storage: Storage;
  let databaseUrl: string | null = null;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-test-'));

  beforeAll(async () => {
    databaseUrl = backend === 'postgres' ? (await createPgDatabase()).url : null;
    storage = openStorage({ databaseUrl, sqliteFile: databaseFile(loadConfig({ PADDOCK_DATA: dataDir })) });
    await migrateTo(storage.db, '0017_a2a_tasks');
    await seedIntervals(storage.db);
    await migrateTo(storage.db, null);
  });
  afterAll(async () => {
    await storage?.close();
    if (databaseUrl) await dropPgDatabase(databaseUrl);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('backfills the per-day rollup and pieces from the intervals closed before them, split at UTC midnight, open ones left out', async () => {
    const rows = await storage.db.selectFrom('billing_usage_days').selectAll().orderBy('day').execute();
    expect(rows.map((row) => [row.account_id, row.day, Number(row.running_ms), Number(row.cpu_ms), Number(row.memory_mb_ms)])).toEqual([
      ['acc_old', '2026-10-01', 3_600_000, 3_600_000, 512 * 3_600_000],
      ['acc_old', '2026-10-02', 2 * 3_600_000 + 1_800_000, 2 * 3_600_000 + 2 * 1_800_000, 512 * (2 * 3_600_000 + 1_800_000)],
    ]);
    const pieces = await storage.db.selectFrom('billing_usage_pieces').selectAll().orderBy('interval_id').orderBy('day').execute();
    expect(pieces.map((piece) => [piece.interval_id, piece.day, piece.started_at, piece.ended_at])).toEqual([
      ['use_1', '2026-10-01', '2026-10-01T23:00:00.000Z', '2026-10-02T00:00:00.000Z'],
      ['use_1', '2026-10-02', '2026-10-02T00:00:00.000Z', '2026-10-02T02:00:00.000Z'],
      ['use_2', '2026-10-02', '2026-10-02T10:00:00.000Z', '2026-10-02T10:30:00.000Z'],
    ]);
  });
});
