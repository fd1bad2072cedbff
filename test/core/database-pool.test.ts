// PADDOCK_DATABASE_POOL_SIZE: how many PostgreSQL connections one process holds at most (a cluster's
// nodes × this is what the database, or PgBouncer in front of it, must accept).
import os from 'node:os';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, storageOptions } from '../../src/config.js';
import { openStorage, type Storage } from '../../src/core/db/database.js';
import { createPgDatabase } from '../helpers/backends.js';
import { waitFor } from '../helpers/wait-for.js';

describe('PADDOCK_DATABASE_POOL_SIZE', () => {
  let database: { url: string; drop(): Promise<void> };
  let storage: Storage | null = null;

  beforeAll(async () => {
    database = await createPgDatabase();
  });
  afterAll(async () => {
    await storage?.close();
    await database?.drop();
  });

  it('defaults to 10 and names the problem in a bad value', () => {
    expect(loadConfig({}).databasePoolSize).toBe(10);
    expect(loadConfig({ PADDOCK_DATABASE_POOL_SIZE: '40' }).databasePoolSize).toBe(40);
    expect(() => loadConfig({ PADDOCK_DATABASE_POOL_SIZE: '1' })).toThrow('PADDOCK_DATABASE_POOL_SIZE must be between 2 and 1000, got 1');
    expect(() => loadConfig({ PADDOCK_DATABASE_POOL_SIZE: 'many' })).toThrow('PADDOCK_DATABASE_POOL_SIZE must be an integer, got "many"');
  });

  it('holds at most that many connections: further queries wait for one, and all answer', async () => {
    storage = openStorage(storageOptions(loadConfig({ DATABASE_URL: database.url, PADDOCK_DATABASE_POOL_SIZE: '3', PADDOCK_DATA: os.tmpdir() })));
    const sleeping = Array.from({ length: 5 }, () => sql`select pg_sleep(2)`.execute(storage!.db));
    const admin = openStorage({ databaseUrl: database.url, sqliteFile: '' });
    try {
      const name = new URL(database.url).pathname.slice(1);
      await waitFor('three connections running the query', async () => {
        const running = await sql<{ n: string }>`select count(*) as n from pg_stat_activity where datname = ${name} and query like 'select pg_sleep%' and state = 'active'`.execute(admin.db);
        return Number(running.rows[0].n) === 3 ? true : null;
      });
      expect(storage.pgPool!.totalCount).toBe(3);
      expect(storage.pgPool!.waitingCount).toBe(2);
    } finally {
      await admin.close();
    }
    await Promise.all(sleeping);
    expect((await sql<{ one: number }>`select 1 as one`.execute(storage.db)).rows).toEqual([{ one: 1 }]);
    expect(storage.pgPool!.totalCount).toBeLessThanOrEqual(3);
  });
});
