// A real Paddock server in its own process (the test app with the runc runtime on a host network profile
// of its own), so node tests can kill -9 it. Prints one JSON line once listening and registered.
// argv: <dataDir> <databaseUrl> <networkProfile> <env as JSON>
import { startApp } from './app.js';

const [dataDir, databaseUrl, profile, env] = process.argv.slice(2);
const app = await startApp('postgres', JSON.parse(env) as Record<string, string>, { runtime: 'runc', networkProfile: Number(profile), reuse: { dataDir, databaseUrl } });
process.stdout.write(`${JSON.stringify({ url: app.url })}\n`);
process.on('SIGTERM', () => void app.close({ keepData: true, keepSandboxes: true }).then(() => process.exit(0)));
