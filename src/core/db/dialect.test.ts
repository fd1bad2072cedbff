// The dialect seam: PostgreSQL gets the row locks that serialize writers, SQLite (one writer at a time)
// gets the query unchanged.
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { sqlDialect } from './dialect.js';
import type { Database } from './schema.js';

// Compiling needs no connection: the drivers are never asked for one.
const postgresDb = new Kysely<Database>({ dialect: new PostgresDialect({ pool: {} as never }) });
const sqliteDb = new Kysely<Database>({ dialect: new SqliteDialect({ database: {} as never }) });

const claimQuery = (db: Kysely<Database>) => db.selectFrom('pipeline_run_stages as s').innerJoin('pipeline_runs as r', 'r.id', 's.run_id').selectAll('s').limit(5);

describe('sqlDialect', () => {
  it('locks the rows a select reads on PostgreSQL', () => {
    expect(sqlDialect('postgres').forUpdate(postgresDb.selectFrom('sessions').selectAll()).compile().sql).toMatch(/ for update$/);
  });

  it('locks the named tables of a join and skips held rows on PostgreSQL', () => {
    expect(sqlDialect('postgres').forUpdateSkipLocked(claimQuery(postgresDb), ['s', 'r']).compile().sql).toMatch(/ for update of "s", "r" skip locked$/);
    expect(sqlDialect('postgres').forUpdateSkipLocked(postgresDb.selectFrom('outbox').selectAll()).compile().sql).toMatch(/ for update skip locked$/);
  });

  it('leaves queries as they are on SQLite, which has no row locks', () => {
    const dialect = sqlDialect('sqlite');
    expect(dialect.forUpdate(sqliteDb.selectFrom('sessions').selectAll()).compile().sql).toBe(sqliteDb.selectFrom('sessions').selectAll().compile().sql);
    expect(dialect.forUpdateSkipLocked(claimQuery(sqliteDb), ['s', 'r']).compile().sql).not.toMatch(/for update/);
  });

  it('binds arrays only on PostgreSQL', () => {
    expect(sqlDialect('postgres').bindsArrays).toBe(true);
    expect(sqlDialect('sqlite').bindsArrays).toBe(false);
  });
});
