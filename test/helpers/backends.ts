// Storage backends every storage-touching test runs against. PostgreSQL must be running (the test
// command starts it); a test never passes by skipping a backend.
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export type Backend = 'sqlite' | 'postgres';
export const BACKENDS: Backend[] = ['sqlite', 'postgres'];

export const ADMIN_PG_URL = process.env.PADDOCK_TEST_PG_URL ?? 'postgres://paddock:paddock@127.0.0.1:5432/postgres';

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/**
 * A fresh PostgreSQL database; `drop` removes it. Empty, or a copy of `template` (a database no session
 * is connected to: test/global-setup.ts makes one migrated to the latest schema and names it in PADDOCK_TEST_PG_TEMPLATE).
 */
export async function createPgDatabase(template?: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `paddock_t_${randomBytes(6).toString('hex')}`;
  if (template !== undefined && !/^paddock_t_[0-9a-f]+$/.test(template)) throw new Error(`not a test database: ${template}`);
  const admin = new pg.Client({ connectionString: ADMIN_PG_URL });
  await admin.connect();
  try {
    await admin.query(template ? `create database ${name} template ${template}` : `create database ${name}`);
  } finally {
    await admin.end();
  }
  const url = withDatabase(ADMIN_PG_URL, name);
  return { url, drop: () => dropPgDatabase(url) };
}

/** Drops the database `url` names (one made by createPgDatabase). */
export async function dropPgDatabase(url: string): Promise<void> {
  const name = new URL(url).pathname.slice(1);
  if (!/^paddock_t_[0-9a-f]+$/.test(name)) throw new Error(`refusing to drop ${name}: not a test database`);
  // An autovacuum worker can still be attached for a moment; retry rather than fail the test over it.
  for (let attempt = 1; ; attempt++) {
    const client = new pg.Client({ connectionString: ADMIN_PG_URL });
    await client.connect();
    try {
      await client.query(`drop database if exists ${name} with (force)`);
      return;
    } catch (error) {
      if (attempt >= 10) throw error;
    } finally {
      await client.end();
    }
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}
