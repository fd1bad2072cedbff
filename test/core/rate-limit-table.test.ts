// The PostgreSQL table the limiters share is UNLOGGED (a counter is written on every request, and a commit
// of unlogged rows does not wait for the disk), and a table an earlier version created logged is turned
// unlogged with its counts kept.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { limiterFactory } from '../../src/core/rate-limit.js';
import { createPgDatabase } from '../helpers/backends.js';

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function pool(): Promise<pg.Pool> {
  const database = await createPgDatabase();
  const created = new pg.Pool({ connectionString: database.url, max: 3 });
  cleanups.push(database.drop, () => created.end());
  return created;
}

const persistence = async (db: pg.Pool) => (await db.query(`SELECT relpersistence FROM pg_class WHERE oid = to_regclass('paddock_rate_limits')`)).rows[0]?.relpersistence;

describe('the rate limits table on PostgreSQL', () => {
  it('is created unlogged, once, by limiters of one server created at the same moment', async () => {
    const db = await pool();
    const factory = limiterFactory(db);
    const [a, b] = await Promise.all([factory.create({ keyPrefix: 'one', points: 2, durationSeconds: 60 }), factory.create({ keyPrefix: 'two', points: 2, durationSeconds: 60 })]);
    expect(await persistence(db)).toBe('u');
    expect((await a.consume('k')).remaining).toBe(1);
    expect((await b.consume('k')).remaining).toBe(1);
  });

  it('is created once when several servers start together on a fresh database', async () => {
    // Two CREATE TABLE IF NOT EXISTS at the same moment can both pass the check; the second then failed
    // on the table's type ("already exists") and the server did not start. Five rounds, six servers each.
    for (let round = 0; round < 5; round++) {
      const other = await pool();
      const limiters = await Promise.all(Array.from({ length: 6 }, () => limiterFactory(other).create({ keyPrefix: 'p', points: 10, durationSeconds: 60 })));
      expect(await persistence(other)).toBe('u');
      const remaining = [];
      for (const limiter of limiters) remaining.push((await limiter.consume('k')).remaining);
      expect(remaining).toEqual([9, 8, 7, 6, 5, 4]);
    }
  });

  it('turns a logged table an earlier version made into an unlogged one, keeping its counts', async () => {
    const db = await pool();
    await db.query(`CREATE TABLE paddock_rate_limits (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`);
    await db.query(`INSERT INTO paddock_rate_limits VALUES ('old:k', 3, $1)`, [Date.now() + 60_000]);
    expect(await persistence(db)).toBe('p');
    const limiter = await limiterFactory(db).create({ keyPrefix: 'old', points: 5, durationSeconds: 60 });
    expect(await persistence(db)).toBe('u');
    expect((await limiter.consume('k')).remaining).toBe(1);
  });
});
