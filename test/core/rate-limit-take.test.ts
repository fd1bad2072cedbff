// Limiter.take: batches of points for the preview relay, from the in-memory store and from the
// PostgreSQL table several servers share. A batch never takes the window past its limit.
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { limiterFactory } from '../../src/core/rate-limit.js';
import { createPgDatabase } from '../helpers/backends.js';

const cleanups: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function factoryFor(backend: 'memory' | 'postgres') {
  if (backend === 'memory') return limiterFactory(null);
  const database = await createPgDatabase();
  const pool = new pg.Pool({ connectionString: database.url, max: 2 });
  cleanups.push(database.drop, () => pool.end());
  return limiterFactory(pool);
}

describe.each(['memory', 'postgres'] as const)('Limiter.take (%s)', (backend) => {
  it('grants whole batches while the window has room, then only what is left, then nothing', async () => {
    const limiter = await (await factoryFor(backend)).create({ keyPrefix: 'take_test', points: 10, durationSeconds: 60 });
    const first = await limiter.take('port', 4);
    expect(first.granted).toBe(4);
    expect(first.expiresAt).toBeGreaterThan(Date.now());
    expect(first.expiresAt).toBeLessThanOrEqual(Date.now() + 60_000);
    expect((await limiter.take('port', 4)).granted).toBe(4);
    expect((await limiter.take('port', 4)).granted).toBe(2);
    expect((await limiter.take('port', 4)).granted).toBe(0);
    // What was refused was given back: the window is exactly full, and one more request is refused.
    expect((await limiter.used('port')).consumed).toBe(10);
    expect((await limiter.consume('port')).allowed).toBe(false);
    expect((await limiter.take('other port', 4)).granted).toBe(4);
  });

  it('takes back unused points into the window they came from, never into a later one', async () => {
    const limiter = await (await factoryFor(backend)).create({ keyPrefix: 'give_back_test', points: 10, durationSeconds: 60 });
    const batch = await limiter.take('port', 8);
    await limiter.giveBack('port', 3, batch.expiresAt);
    expect((await limiter.used('port')).consumed).toBe(5);
    // A grant from another window (its end a minute off) gives nothing back.
    await limiter.giveBack('port', 3, batch.expiresAt + 60_000);
    expect((await limiter.used('port')).consumed).toBe(5);
    // Never below nothing used.
    await limiter.giveBack('port', 50, batch.expiresAt);
    expect((await limiter.used('port')).consumed).toBe(0);
    expect((await limiter.take('port', 20)).granted).toBe(10);
  });
});
