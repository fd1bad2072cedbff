// Fixed-window request limits (rate-limiter-flexible). In memory for a single process on SQLite; in a
// PostgreSQL table when DATABASE_URL is set, so every server process sharing the database shares the
// counts. If that store fails, an in-memory limiter keeps answering rather than failing requests.
import type pg from 'pg';
import { RateLimiterMemory, RateLimiterPostgres, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';

export interface LimiterOptions {
  keyPrefix: string;
  points: number;
  durationSeconds: number;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Epoch seconds at which the current window ends. */
  resetAt: number;
  retryAfterSeconds: number;
}

/** Two readings of one window's end differ by the time between them; windows are a minute or more. */
const SAME_WINDOW_MS = 1000;

/** Told of every request a limiter refuses (metrics count them by limiter). */
export interface RefusalObserver {
  refused(limiter: string): void;
}

export class Limiter {
  constructor(
    private readonly limiter: RateLimiterAbstract,
    readonly points: number,
    /** The limiter's key prefix (`plan_free`, `ip_open`, `preview_requests`…), as refusals are reported. */
    readonly name = '',
    private readonly observer: RefusalObserver | null = null,
  ) {}

  private decision(res: RateLimiterRes, allowed: boolean): RateDecision {
    return {
      allowed,
      limit: this.points,
      remaining: Math.max(0, res.remainingPoints),
      resetAt: Math.ceil((Date.now() + res.msBeforeNext) / 1000),
      retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    };
  }

  async consume(key: string): Promise<RateDecision> {
    try {
      return this.decision(await this.limiter.consume(key), true);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      this.observer?.refused(this.name);
      return this.decision(rejection, false);
    }
  }

  /**
   * Up to `wanted` points at once, for a caller that spends them later in the window (a batch of
   * requests): what the window had left is taken, never more. `expiresAt` (epoch ms) ends the window.
   */
  async take(key: string, wanted: number): Promise<{ granted: number; expiresAt: number }> {
    try {
      const res = await this.limiter.consume(key, wanted);
      return { granted: wanted, expiresAt: Date.now() + res.msBeforeNext };
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      const over = Math.min(wanted, rejection.consumedPoints - this.points);
      if (over > 0) await this.limiter.reward(key, over);
      return { granted: wanted - Math.max(0, over), expiresAt: Date.now() + rejection.msBeforeNext };
    }
  }

  /**
   * Returns points `take` granted and nobody used, while the window they came from is still the current
   * one (its end within a second of `expiresAt`): a later window never gets them.
   */
  async giveBack(key: string, points: number, expiresAt: number): Promise<void> {
    const res = await this.limiter.get(key);
    if (!res || points <= 0 || Math.abs(Date.now() + res.msBeforeNext - expiresAt) > SAME_WINDOW_MS) return;
    await this.limiter.reward(key, Math.min(points, res.consumedPoints));
  }

  /** How many points `key` has used in the current window, without consuming one. */
  async used(key: string): Promise<{ consumed: number; retryAfterSeconds: number }> {
    const res = await this.limiter.get(key);
    if (!res) return { consumed: 0, retryAfterSeconds: 0 };
    return { consumed: res.consumedPoints, retryAfterSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)) };
  }

  async reset(key: string): Promise<void> {
    await this.limiter.delete(key);
  }
}

export interface LimiterFactory {
  create(options: LimiterOptions): Promise<Limiter>;
}

const TABLE = 'paddock_rate_limits';

/**
 * The counters' table is UNLOGGED: a counter is written on every request, and a commit that wrote only
 * unlogged rows does not wait for the write-ahead log to reach the disk. PostgreSQL empties the table
 * after a crash and does not copy it to replicas: the windows then start again, nothing else is lost.
 * The columns are rate-limiter-flexible's own (its CREATE TABLE IF NOT EXISTS then finds the table).
 * Servers starting together take turns under an advisory lock: two CREATE TABLE IF NOT EXISTS at the same
 * moment can both pass the check, and the second then fails on the table's type ("already exists").
 */
async function ensureUnloggedTable(pgPool: pg.Pool): Promise<void> {
  const client = await pgPool.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [TABLE]);
    await client.query(`CREATE UNLOGGED TABLE IF NOT EXISTS ${TABLE} (key varchar(255) PRIMARY KEY, points integer NOT NULL DEFAULT 0, expire bigint)`);
    // A table an earlier version created logged.
    const { rows } = await client.query<{ relpersistence: string }>(`SELECT relpersistence FROM pg_class WHERE oid = to_regclass($1)`, [TABLE]);
    if (rows[0]?.relpersistence === 'p') await client.query(`ALTER TABLE ${TABLE} SET UNLOGGED`);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {});
    client.release(true);
    throw error;
  }
  client.release();
}

export function limiterFactory(pgPool: pg.Pool | null, observer: RefusalObserver | null = null): LimiterFactory {
  // Limiters sharing one PostgreSQL table must not create it concurrently.
  let tableReady: Promise<unknown> | null = null;
  return {
    async create({ keyPrefix, points, durationSeconds }) {
      const memory = new RateLimiterMemory({ keyPrefix, points, duration: durationSeconds });
      if (!pgPool) return new Limiter(memory, points, keyPrefix, observer);
      const created = (tableReady ?? ensureUnloggedTable(pgPool)).then(
        () =>
          new Promise<RateLimiterAbstract>((resolve, reject) => {
            const limiter: RateLimiterAbstract = new RateLimiterPostgres(
              { storeClient: pgPool, tableName: TABLE, keyPrefix, points, duration: durationSeconds, insuranceLimiter: memory },
              (err?: Error) => (err ? reject(err) : resolve(limiter)),
            );
          }),
      );
      tableReady = created.catch(() => undefined);
      return new Limiter(await created, points, keyPrefix, observer);
    },
  };
}
