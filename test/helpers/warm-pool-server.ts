// A test app with a warm pool in its own process, so a test can kill -9 it with the pool full.
// Prints one JSON line (url and the pool's ready ids) once the pool is full.
// argv: <dataDir> <networkProfile> <runc|gvisor> <PADDOCK_WARM_POOL>
import { startApp } from './app.js';
import { waitFor } from './wait-for.js';

const [dataDir, profile, runtime, pool] = process.argv.slice(2);
const app = await startApp(
  'sqlite',
  { PADDOCK_WARM_POOL: pool, PADDOCK_LOG_LEVEL: 'warn' },
  {
    runtime: runtime as 'runc' | 'gvisor',
    networkProfile: Number(profile),
    reuse: { dataDir, databaseUrl: null },
  },
);
const full = () => app.runtime!.warmPoolStatus!().every((entry) => entry.ready.length === entry.target);
await waitFor('the warm pool to fill', full, 120_000);
const ready = app.runtime!.warmPoolStatus!().flatMap((entry) => entry.ready);
process.stdout.write(`${JSON.stringify({ url: app.url, ready })}\n`);
