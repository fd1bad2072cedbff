// A real Paddock server in its own process (the test app with the runc runtime on a host network
// profile of its own), so durability tests can kill -9 it. Prints one JSON line once listening.
// argv: <backend> <dataDir> <databaseUrl|-> <networkProfile> [runc|gvisor]
import { startApp } from './app.js';

const [backend, dataDir, databaseUrl, profile, runtime = 'runc'] = process.argv.slice(2);
const app = await startApp(
  backend as 'sqlite' | 'postgres',
  { PADDOCK_PIPELINE_POLL_INTERVAL_MS: '100', PADDOCK_PIPELINE_LEASE_SECONDS: '3', PADDOCK_PIPELINE_CONCURRENCY: '4', PADDOCK_LOG_LEVEL: 'warn' },
  { runtime: runtime as 'runc' | 'gvisor', networkProfile: Number(profile), reuse: { dataDir, databaseUrl: databaseUrl === '-' ? null : databaseUrl } },
);
process.stdout.write(`${JSON.stringify({ url: app.url, workerId: app.services.pipelines.worker.id })}\n`);
process.on('SIGTERM', () => void app.close({ keepData: true }).then(() => process.exit(0)));
