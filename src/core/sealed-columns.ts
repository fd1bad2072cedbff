// Seals the values a column held in plain text before sealing existed (sealed-text.ts). Each feature
// calls it at start-up for its own tables; every node may run it at once.
import type { Kysely } from 'kysely';
import type { Database } from './db/schema.js';
import { SEALED_LIKE } from './sealed-text.js';

const BATCH = 500;

export interface PlainColumn {
  table: keyof Database;
  /** The column that names a row; its value is what `seal` binds the sealed value to. */
  key: string;
  column: string;
  seal(value: string, key: string): string;
}

/** Each update applies only while the value is still the plain one read, so nodes sealing at once write it once. */
export async function sealPlainValues(db: Kysely<Database>, { table, key, column, seal }: PlainColumn): Promise<void> {
  // The table and columns are the caller's own, named at run time: Kysely cannot type them here.
  const untyped = db as unknown as Kysely<any>;
  for (;;) {
    const rows: { key: string; value: string }[] = await untyped
      .selectFrom(table)
      .select([`${key} as key`, `${column} as value`])
      .where(column, 'not like', SEALED_LIKE) // never a null: nothing to seal
      .limit(BATCH)
      .execute();
    for (const row of rows) {
      await untyped
        .updateTable(table)
        .set({ [column]: seal(row.value, row.key) })
        .where(key, '=', row.key)
        .where(column, '=', row.value)
        .execute();
    }
    if (rows.length < BATCH) return;
  }
}
