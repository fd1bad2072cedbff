// What SQLite and PostgreSQL do differently, asked as capabilities (as Kysely's dialect adapters are),
// chosen once when storage opens. Code above core/db calls these and never compares dialect names.
// SQLite runs one write transaction at a time, so the locks that serialize writers on PostgreSQL are
// no-ops there.
import { sql, type SelectQueryBuilder } from 'kysely';
import type { Db } from './handles.js';

export type Dialect = 'sqlite' | 'postgres';

/** Tables whose rows are locked by id to serialize work on one of them (an account's creates, a run's state writes). */
export type LockableTable = 'accounts' | 'pipeline_runs';

export interface SqlDialect {
  readonly name: Dialect;
  /** The rows the select reads stay locked until the transaction ends (`for update`). */
  forUpdate<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>): SelectQueryBuilder<DB, TB, O>;
  /** Like forUpdate, but rows another transaction holds are skipped instead of waited for; `of` names the tables of a join to lock. */
  forUpdateSkipLocked<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>, of?: readonly (TB & string)[]): SelectQueryBuilder<DB, TB, O>;
  /** Locks one row by id until the transaction ends. */
  lockRowForUpdate(trx: Db, table: LockableTable, id: string): Promise<void>;
  /** Serializes every transaction that asks for `key` until it ends (a row-less lock). */
  lockKey(trx: Db, key: string): Promise<void>;
  /** Arrays bind as one parameter (`unnest($1::text[])`): a batch of rows of any size is one statement. */
  readonly bindsArrays: boolean;
}

const postgres: SqlDialect = {
  name: 'postgres',
  forUpdate: (query) => query.forUpdate(),
  forUpdateSkipLocked: (query, of) => (of?.length ? query.forUpdate([...of]) : query.forUpdate()).skipLocked(),
  async lockRowForUpdate(trx, table, id) {
    await sql`select id from ${sql.table(table)} where id = ${id} for update`.execute(trx);
  },
  async lockKey(trx, key) {
    await sql`select pg_advisory_xact_lock(hashtextextended(${key}, 0))`.execute(trx);
  },
  bindsArrays: true,
};

const sqlite: SqlDialect = {
  name: 'sqlite',
  forUpdate: (query) => query,
  forUpdateSkipLocked: (query) => query,
  lockRowForUpdate: async () => {},
  lockKey: async () => {},
  bindsArrays: false,
};

export function sqlDialect(name: Dialect): SqlDialect {
  return name === 'postgres' ? postgres : sqlite;
}
