// Upgrading to confidential sandboxes (0013): a sandbox created with secrets before the column is
// marked confidential, so narrower keys are kept out of it at once; the others are not; on SQLite and
// PostgreSQL.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { databaseFile, loadConfig } from '../../src/config.js';
import { openStorage, type Storage } from '../../src/core/db/database.js';
import { migrateTo } from '../../src/core/db/migrate.js';
import { BACKENDS, createPgDatabase, dropPgDatabase } from '../helpers/backends.js';
import type { TestApp } from '../helpers/app.js';
import { seedSandbox } from '../helpers/sessions.js';

const NOW = new Date().toISOString();

describe.each(BACKENDS)('confidential sandboxes migration on %s', (backend) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-confidential-'));
  let storage: Storage;
  let databaseUrl: string | null = null;
  let withSecrets: string;
  let without: string;

  beforeAll(async () => {
    databaseUrl = backend === 'postgres' ? (await createPgDatabase()).url : null;
    storage = openStorage({ databaseUrl, sqliteFile: databaseFile(loadConfig({ PADDOCK_DATA: dataDir })) });
    await migrateTo(storage.db, '0011_run_sessions');
    const db = storage.db as never as TestApp['storage']['db'];
    await db
      .insertInto('accounts')
      .values({ id: 'acc_old', email: 'old@example.com', email_normalized: 'old@example.com', name: null, password_hash: 'x', plan: 'free', created_at: NOW, updated_at: NOW })
      .execute();
    const t = { storage: { db } } as unknown as TestApp;
    withSecrets = await seedSandbox(t, 'acc_old');
    without = await seedSandbox(t, 'acc_old');
    await db.updateTable('sandboxes').set({ secrets: '["API_TOKEN"]' }).where('id', '=', withSecrets).execute();
    await migrateTo(storage.db, '0013_confidential_sandboxes');
  });
  afterAll(async () => {
    await storage?.close();
    if (databaseUrl) await dropPgDatabase(databaseUrl);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('marks sandboxes created with secrets confidential, and only those', async () => {
    const rows = await storage.db.selectFrom('sandboxes').select(['id', 'confidential']).execute();
    expect(Object.fromEntries(rows.map((row) => [row.id, Number(row.confidential)]))).toEqual({ [withSecrets]: 1, [without]: 0 });
  });
});
