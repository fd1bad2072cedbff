// A real Paddock (app, runtime, SQLite, or PostgreSQL when `env` names a DATABASE_URL) for the sandbox benchmarks, on a host network of its own so a
// benchmark's start-up never touches the sandboxes of a server running beside it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp, type AppServices } from '../src/app.js';
import { databaseFile, loadConfig } from '../src/config.js';
import { openStorage, type Storage } from '../src/core/db/database.js';
import { migrateToLatest } from '../src/core/db/migrate.js';
import { createRuntime, type RuntimeName, type SandboxRuntime } from '../src/runtime/index.js';
import { createSandboxNetwork } from '../src/runtime/network/index.js';

export interface BenchApp {
  dataDir: string;
  runtime: SandboxRuntime;
  services: AppServices;
  storage: Storage;
  apiKey: string;
  port: number;
  base: string;
  /** The app's HTTP server, for benchmarks that watch its requests. */
  server: import('node:http').Server;
  api(method: string, route: string, body?: object): Promise<any>;
  close(): Promise<void>;
}

/** The first of the usual template dirs that holds `template`, ready. */
export function templatesDir(template: string): string {
  for (const candidate of [process.env.BENCH_TEMPLATES_DIR, '.test-data/templates', 'data/templates']) {
    if (candidate && fs.existsSync(path.join(candidate, template, 'ready.json'))) return path.resolve(candidate);
  }
  throw new Error(`template ${template} is not built: run npm run test:all or paddock templates build ${template}`);
}

/** The host network a benchmark's sandboxes use; a benchmark that may run beside the others names its own. */
export interface BenchNetwork {
  bridgeName: string;
  subnet: string;
  tableName: string;
  interfacePrefix: string;
  netnsPrefix: string;
}

const DEFAULT_NETWORK: BenchNetwork = { bridgeName: 'pdkbenchbr', subnet: '10.229.0.0/16', tableName: 'paddock_bench', interfacePrefix: 'pb', netnsPrefix: 'pdkbench-' };

/** `PADDOCK_TEST_NETWORK_BASE` (10 … 50, as for test apps) gives a checkout's benchmarks a host network of their own. */
function defaultNetwork(): BenchNetwork {
  const base = Number(process.env.PADDOCK_TEST_NETWORK_BASE ?? 0);
  if (![10, 20, 30, 40, 50].includes(base)) return DEFAULT_NETWORK;
  return { bridgeName: `pdkbench${base}br`, subnet: `10.${229 + base / 10}.0.0/16`, tableName: `paddock_bench${base}`, interfacePrefix: `pb${base}`, netnsPrefix: `pdkbench${base}-` };
}

/** Every `nft` call reads the whole ruleset: a benchmark leaves no tables (or bridge) behind to slow the next. */
export function removeHostNetwork(network: BenchNetwork): void {
  for (const family of ['inet', 'bridge']) spawnSync('nft', ['delete', 'table', family, network.tableName], { stdio: 'ignore' });
  spawnSync('ip', ['link', 'del', network.bridgeName], { stdio: 'ignore' });
}

export async function startBenchApp(runtimeName: RuntimeName, template: string, env: Record<string, string> = {}, hostNetwork: BenchNetwork = defaultNetwork()): Promise<BenchApp> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-bench-'));
  fs.symlinkSync(templatesDir(template), path.join(dataDir, 'templates'));
  const config = loadConfig({ PADDOCK_DATA: dataDir, PADDOCK_LOG_LEVEL: 'warn', PADDOCK_RATE_LIMIT_ENTERPRISE: '100000000', PADDOCK_WARM_POOL: '0', ...env });
  const storage = openStorage({ databaseUrl: config.databaseUrl, sqliteFile: databaseFile(config) });
  await migrateToLatest(storage.db);
  const network = createSandboxNetwork({ stateDir: path.join(dataDir, 'network'), ...hostNetwork });
  const runtime = createRuntime(runtimeName, { dataDir, network });
  await runtime.init();
  const { app, services } = await buildApp({ config, storage, runtime });
  const { api_key: apiKey } = await services.accounts.signup({ email: 'bench@example.com', password: 'bench password' }, 'enterprise');
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const base = `http://127.0.0.1:${port}`;
  return {
    dataDir,
    runtime,
    services,
    storage,
    apiKey,
    port,
    base,
    server: app.server,
    async api(method, route, body) {
      const response = await fetch(base + route, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return response.status === 204 ? null : response.json();
    },
    async close() {
      await app.close();
      await runtime.close?.();
      await storage.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      removeHostNetwork(hostNetwork);
    },
  };
}
