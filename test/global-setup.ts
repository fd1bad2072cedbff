// Builds dist/ and the sandbox agent once so CLI tests run the real `paddock` binary; afterwards removes
// the host networks (nftables tables, bridges) of the test network profiles this run may have used
// (scripts/remove-test-networks.sh).
import { execFileSync, spawnSync } from 'node:child_process';
import { openStorage } from '../src/core/db/database.js';
import { migrateToLatest } from '../src/core/db/migrate.js';
import { createPgDatabase, dropPgDatabase } from './helpers/backends.js';

// scripts/test.sh runs the projects as Vitest processes at once: it builds before them all
// (PADDOCK_TEST_BUILT=1), and removes the host networks itself once they have all finished.
// The PostgreSQL database migrated to the latest schema that test/helpers/app.ts copies for each app is
// named in PADDOCK_TEST_PG_TEMPLATE, which the test processes and the servers they start inherit.
export default async function setup(): Promise<() => Promise<void>> {
  if (process.env.PADDOCK_TEST_BUILT !== '1') build();
  const template = await migratedPgTemplate();
  process.env.PADDOCK_TEST_PG_TEMPLATE = new URL(template.url).pathname.slice(1);
  return async () => {
    await template.drop();
    if (process.env.PADDOCK_TEST_KEEP_NETWORKS !== '1') removeProfileNetworks();
  };
}

/** Copying a migrated database takes about half the time of migrating a new one (0.4 s against 0.9 s). */
async function migratedPgTemplate(): Promise<{ url: string; drop(): Promise<void> }> {
  const template = await createPgDatabase();
  const storage = openStorage({ databaseUrl: template.url, sqliteFile: '' });
  try {
    await migrateToLatest(storage.db);
  } finally {
    await storage.close();
  }
  return { url: template.url, drop: () => dropPgDatabase(template.url) };
}

function build(): void {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'], { stdio: 'inherit' });
  execFileSync('bash', ['scripts/build-agent.sh'], { stdio: 'inherit' });
  execFileSync('bash', ['scripts/build-relay.sh'], { stdio: 'inherit' });
}

/** Those of `runtime` and `runtime-apart` (the base to + 19) and of `runtime-beside` (+ 40 on). */
function removeProfileNetworks(): void {
  const base = Number(process.env.PADDOCK_TEST_NETWORK_BASE ?? 0);
  for (const shift of [0, 40]) spawnSync('bash', ['scripts/remove-test-networks.sh'], { stdio: 'inherit', env: { ...process.env, PADDOCK_TEST_NETWORK_BASE: String(base + shift) } });
}
