// The test app in a process of its own, on PostgreSQL and without a runtime, configured by a JSON
// object of environment settings; prints one JSON line with its URL once listening.
// argv: <settings as JSON>
import { startApp } from './app.js';

const settings = JSON.parse(process.argv[2] ?? '{}') as Record<string, string>;
const app = await startApp('postgres', settings);
process.stdout.write(`${JSON.stringify({ url: app.url })}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
