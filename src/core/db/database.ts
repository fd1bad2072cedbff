// Opens the configured database: SQLite (WAL, foreign keys on) under the data dir by default,
// PostgreSQL when DATABASE_URL is set. Everything above this file speaks Kysely and never knows which.
import fs from 'node:fs';
import path from 'node:path';
import SqliteDatabase from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, sql, type SqliteDatabase as KyselySqlite } from 'kysely';
import { sqlDialect, type Dialect, type SqlDialect } from './dialect.js';
import type { Database } from './schema.js';

export type { Dialect };

export interface Storage {
  db: Kysely<Database>;
  dialect: Dialect;
  /** What this dialect does differently (row locks, array parameters): ask it, never compare `dialect`. */
  sqlDialect: SqlDialect;
  /** Present for PostgreSQL: shared with components that need the raw pool (rate limiter store). */
  pgPool: pg.Pool | null;
  close(): Promise<void>;
}

export interface StorageOptions {
  databaseUrl: string | null;
  sqliteFile: string;
  /** PostgreSQL connections this process may hold at once; 10 unless given. */
  poolSize?: number;
}

export function openStorage(options: StorageOptions): Storage {
  if (options.databaseUrl) {
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: options.poolSize ?? 10 });
    // An idle client losing its connection must not crash the process; the next query reconnects.
    pool.on('error', () => {});
    const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    return { db, dialect: 'postgres', sqlDialect: sqlDialect('postgres'), pgPool: pool, close: () => db.destroy() };
  }
  fs.mkdirSync(path.dirname(options.sqliteFile), { recursive: true });
  const sqlite = new SqliteDatabase(options.sqliteFile);
  sqlite.pragma('journal_mode = WAL');
  sqlite.pragma('foreign_keys = ON');
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: withStatementCache(sqlite) }) });
  return { db, dialect: 'sqlite', sqlDialect: sqlDialect('sqlite'), pgPool: null, close: () => db.destroy() };
}

const STATEMENT_CACHE_SIZE = 500;

/** Kysely prepares every query anew; preparing costs more than running a small query, so keep them. */
function withStatementCache(sqlite: SqliteDatabase.Database): KyselySqlite {
  const statements = new Map<string, SqliteDatabase.Statement>();
  return {
    prepare(source: string) {
      let statement = statements.get(source);
      if (!statement) {
        if (statements.size >= STATEMENT_CACHE_SIZE) statements.delete(statements.keys().next().value!);
        statement = sqlite.prepare(source);
        statements.set(source, statement);
      }
      return statement;
    },
    close: () => sqlite.close(),
  };
}

export async function isReachable(db: Kysely<Database>): Promise<boolean> {
  try {
    await sql`select 1`.execute(db);
    return true;
  } catch {
    return false;
  }
}

/** True when `error` is a unique-constraint violation, in either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: string } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
