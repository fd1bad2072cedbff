// Authenticated `GET /v1/account` against an unauthenticated hello route in the same process, under
// the same load (autocannon): the cost of credential checks, rate limiting and the account query.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile } from 'node:child_process';
import http from 'node:http';
import { promisify } from 'node:util';
import { buildApp } from '../src/app.js';
import { databaseFile, loadConfig } from '../src/config.js';
import { openStorage } from '../src/core/db/database.js';
import { migrateToLatest } from '../src/core/db/migrate.js';
import type { BenchRow } from './table.js';

const DURATION_SECONDS = Number(process.env.BENCH_SECONDS ?? 5);

interface LoadResult {
  requests: { average: number; total: number };
  non2xx: number;
}

/** Load comes from a separate process so the generator does not compete with the server's event loop. */
export async function load(url: string, headers: Record<string, string> = {}): Promise<LoadResult> {
  const args = ['node_modules/autocannon/autocannon.js', '--json', '-c', '32', '-d', String(DURATION_SECONDS)];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}=${value}`);
  const { stdout } = await promisify(execFile)(process.execPath, [...args, url], { maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout);
}

/** Sequential keep-alive requests timed one by one: latency with microsecond resolution. */
export async function latencies(url: string, headers: Record<string, string> = {}, count = 3000): Promise<{ p50: number; p99: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const samples: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    await new Promise<void>((resolve, reject) => {
      http
        .get(url, { agent, headers }, (res) => {
          res.resume();
          res.on('end', resolve);
        })
        .on('error', reject);
    });
    samples.push(Number(process.hrtime.bigint() - start) / 1e6);
  }
  agent.destroy();
  samples.sort((a, b) => a - b);
  return { p50: samples[Math.floor(count * 0.5)], p99: samples[Math.floor(count * 0.99)] };
}

export async function benchApi(): Promise<BenchRow[]> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-bench-'));
  const config = loadConfig({
    PADDOCK_DATA: dataDir,
    PADDOCK_LOG_LEVEL: 'warn',
    PADDOCK_RATE_LIMIT_ENTERPRISE: '100000000',
    PADDOCK_RATE_LIMIT_SYSTEM: '100000000',
  });
  const storage = openStorage({ databaseUrl: null, sqliteFile: databaseFile(config) });
  await migrateToLatest(storage.db);
  const { app, services } = await buildApp({ config, storage });
  app.get('/bench/hello', { config: { access: { kind: 'open', limit: 'system' } } }, async () => ({ hello: 'world' }));
  const { api_key } = await services.accounts.signup({ email: 'bench@example.com', password: 'bench password' }, 'enterprise');
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  try {
    await load(`${base}/bench/hello`); // warm-up
    const hello = await load(`${base}/bench/hello`);
    const auth = { authorization: `Bearer ${api_key}` };
    const account = await load(`${base}/v1/account`, auth);
    if (account.non2xx > 0) throw new Error(`${account.non2xx} non-2xx answers from /v1/account`);
    const helloLatency = await latencies(`${base}/bench/hello`);
    const accountLatency = await latencies(`${base}/v1/account`, auth);
    return [
      { what: 'GET /v1/account throughput vs hello route', ours: account.requests.average, baseline: hello.requests.average, unit: 'req/s', better: 'higher', goal: '≥ 0.5×' },
      { what: 'GET /v1/account p50 latency vs hello route (sequential)', ours: accountLatency.p50, baseline: helloLatency.p50, unit: 'ms', better: 'lower' },
      { what: 'GET /v1/account p99 latency vs hello route (sequential)', ours: accountLatency.p99, baseline: helloLatency.p99, unit: 'ms', better: 'lower' },
    ];
  } finally {
    await app.close();
    await storage.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
