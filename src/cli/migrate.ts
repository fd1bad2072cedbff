// `paddock migrate`: apply pending migrations and say which.
import { storageOptions, type Config } from '../config.js';
import { openStorage } from '../core/db/database.js';
import { migrateToLatest } from '../core/db/migrate.js';

export async function migrate(config: Config): Promise<number> {
  const storage = openStorage(storageOptions(config));
  try {
    const applied = await migrateToLatest(storage.db);
    process.stdout.write(applied.length ? `applied: ${applied.join(', ')}\n` : 'database is up to date\n');
    return 0;
  } finally {
    await storage.close();
  }
}
