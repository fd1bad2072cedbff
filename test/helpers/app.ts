// Starts the real Paddock app on a random port against a real backend and gives tests an HTTP client.
// Every credential the client sees (signup keys, created keys, login tokens, passwords sent) is
// remembered, and `close()` fails if any of them appears in the app's log.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp, type AppServices } from '../../src/app.js';
import { storageOptions, loadConfig, type Config } from '../../src/config.js';
import { openStorage, type Storage } from '../../src/core/db/database.js';
import { migrateToLatest } from '../../src/core/db/migrate.js';
import { createRuntime, type RuntimeName, type SandboxRuntime } from '../../src/runtime/index.js';
import { createSandboxNetwork } from '../../src/runtime/network/index.js';
import { stateGatewayPorts } from '../../src/pipelines/state/gateway.js';
import { createPgDatabase, dropPgDatabase, type Backend } from './backends.js';

/** Built templates shared by every test run (gitignored); `npm run test:all` builds them. */
export const TEST_TEMPLATES_DIR = path.resolve('.test-data/templates');

const SECRET_PATTERN = /svc_(?:sk|ds)_[A-Za-z0-9]{43}/g;

export interface Reply<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent as-is instead of JSON-encoding `body`. */
  raw?: string | Buffer;
  token?: string;
  headers?: Record<string, string>;
  contentType?: string | null;
}

export interface TestApp {
  url: string;
  /** The data directory and database, so another app can be started on them (see StartOptions.reuse). */
  dataDir: string;
  databaseUrl: string | null;
  backend: Backend;
  config: Config;
  storage: Storage;
  services: AppServices;
  logFile: string;
  secrets: Set<string>;
  runtime: SandboxRuntime | null;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<Reply<T>>;
  /** Signs up a new account with a unique email; returns its key and account. */
  signup(overrides?: { email?: string; password?: string; name?: string }): Promise<{ key: string; account: any; email: string; password: string }>;
  /** Signs up an account on `plan`; the returned key is minted after the plan change, so it sees the plan at once. */
  signupOnPlan(plan: 'free' | 'pro' | 'team' | 'enterprise'): Promise<{ key: string; account: any }>;
  /** `keepData` leaves the data directory and database for an app started later with `reuse`;
   * `keepSandboxes` also leaves the sandboxes running (a server restart). */
  close(options?: { keepData?: boolean; keepSandboxes?: boolean }): Promise<void>;
}

let counter = 0;

export interface StartOptions {
  /** Serve the sandbox endpoints with this driver. */
  runtime?: RuntimeName;
  /**
   * A separate host network (bridge, subnet, nftables table, name prefixes) numbered 1-9, so this app's
   * start-up reconciliation cannot touch sandboxes of an app on the default network running at the same time.
   */
  networkProfile?: number;
  /** Start on the data directory and database of an app that was (or will be) closed with `keepData`. */
  reuse?: { dataDir: string; databaseUrl: string | null };
}

/**
 * `PADDOCK_TEST_NETWORK_BASE` (10, 20, … 90) shifts every profile, and puts apps that asked for none on
 * a profile of their own, so two checkouts can run runtime tests on one host at the same time.
 */
function effectiveProfile(requested: number | undefined): number | undefined {
  const base = Number(process.env.PADDOCK_TEST_NETWORK_BASE ?? 0);
  if (!Number.isInteger(base) || base < 0 || base > 90 || base % 10 !== 0) throw new Error('PADDOCK_TEST_NETWORK_BASE must be one of 0, 10, 20, … 90');
  if (!requested) return base || undefined;
  return base + requested;
}

function profileNetwork(profile: number, dataDir: string, config: Config) {
  return createSandboxNetwork({
    exposedHostPorts: stateGatewayPorts(config),
    stateDir: path.join(dataDir, 'network'),
    bridgeName: `pdkp${profile}br`,
    subnet: `10.${150 + profile}.0.0/16`,
    tableName: `paddock_p${profile}`,
    // nftables matches interfaces by prefix (`pp2*`), so no profile's prefix may begin another's:
    // two digits always, and a letter the older one-digit names (`pp2`) never matched.
    interfacePrefix: `pq${String(profile).padStart(2, '0')}`,
    netnsPrefix: `pdkp${profile}-`,
  });
}

/**
 * Destroys every sandbox still in a data directory (a server killed with SIGKILL that never restarts
 * leaves its own running), then removes the directory. Only for data dirs no live server uses.
 */
export async function removeDataDir(dataDir: string, options: { runtime: RuntimeName; networkProfile?: number }): Promise<void> {
  const config = loadConfig({ PADDOCK_DATA: dataDir });
  const profile = effectiveProfile(options.networkProfile);
  const network = profile ? profileNetwork(profile, dataDir, config) : undefined;
  const runtime = createRuntime(options.runtime, { dataDir, network, exposedHostPorts: stateGatewayPorts(config) });
  await runtime.init();
  await runtime.reconcile([]);
  await runtime.close?.();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

export async function startApp(backend: Backend, env: Record<string, string> = {}, options: StartOptions = {}): Promise<TestApp> {
  const dataDir = options.reuse?.dataDir ?? fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-test-'));
  if (!options.reuse) fs.symlinkSync(TEST_TEMPLATES_DIR, path.join(dataDir, 'templates'));
  const pgDatabase = options.reuse ? null : backend === 'postgres' ? await createPgDatabase(process.env.PADDOCK_TEST_PG_TEMPLATE) : null;
  const databaseUrl = options.reuse ? options.reuse.databaseUrl : (pgDatabase?.url ?? null);
  const config = loadConfig({
    PADDOCK_DATA: dataDir,
    PADDOCK_PORT: '0',
    PADDOCK_LOG_LEVEL: 'info',
    PADDOCK_RATE_LIMIT_FREE: '100000',
    PADDOCK_RATE_LIMIT_OPEN: '100000',
    PADDOCK_LOGIN_MAX_FAILURES: '1000',
    // Off unless a test asks: a pool filling in the background would make counts, leftovers and timings vary.
    PADDOCK_WARM_POOL: '0',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...env,
  });
  const storage = openStorage(storageOptions(config));
  await migrateToLatest(storage.db);
  const logFile = path.join(dataDir, options.reuse ? `paddock-${++counter}.log` : 'paddock.log');
  const logStream = fs.createWriteStream(logFile);
  const profile = effectiveProfile(options.networkProfile);
  const network = profile ? profileNetwork(profile, dataDir, config) : undefined;
  const runtime = options.runtime ? createRuntime(options.runtime, { dataDir, network, exposedHostPorts: stateGatewayPorts(config) }) : null;
  await runtime?.init();
  const { app, services } = await buildApp({ config, storage, logStream, runtime: runtime ?? undefined });
  await app.listen({ host: '127.0.0.1', port: 0 });
  await services.nodes.registered();
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const secrets = new Set<string>();

  const remember = (text: string) => {
    for (const match of text.match(SECRET_PATTERN) ?? []) secrets.add(match);
  };

  async function request<T = any>(method: string, route: string, options: RequestOptions = {}): Promise<Reply<T>> {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let body: string | Buffer | undefined;
    if (options.raw !== undefined) body = options.raw;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined && options.contentType !== null) headers['content-type'] = options.contentType ?? 'application/json';
    if (options.body && typeof options.body === 'object' && 'password' in options.body && typeof (options.body as any).password === 'string') {
      const password = (options.body as any).password as string;
      if (password.length >= 8) secrets.add(password);
    }
    const response = await fetch(url + route, { method, headers, body: body as BodyInit | undefined });
    const text = await response.text();
    remember(text);
    let parsed: any = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {}
    return { status: response.status, headers: response.headers, body: parsed, text };
  }

  return {
    url,
    dataDir,
    databaseUrl,
    backend,
    config,
    storage,
    services,
    logFile,
    secrets,
    runtime,
    request,
    async signup(overrides = {}) {
      const email = overrides.email ?? `user${++counter}-${Date.now()}@example.com`;
      const password = overrides.password ?? `pw-${Math.random().toString(36).slice(2)}-long`;
      const reply = await request('POST', '/signup', { body: { email, password, ...(overrides.name ? { name: overrides.name } : {}) } });
      if (reply.status !== 201) throw new Error(`signup failed: ${reply.status} ${reply.text}`);
      return { key: reply.body.api_key, account: reply.body.account, email, password };
    },
    async signupOnPlan(plan) {
      const { key, account } = await (this as TestApp).signup();
      await storage.db.updateTable('accounts').set({ plan }).where('id', '=', account.id).execute();
      const minted = await request('POST', '/v1/account/keys', { token: key, body: { name: `on-${plan}` } });
      return { key: minted.body.key as string, account: { ...account, plan } };
    },
    async close({ keepData = false, keepSandboxes = false } = {}) {
      // A failing destroy must not leave the app (and its listeners, like the state gateway) running
      // into the next test file: close everything, then report it.
      let destroyFailure: unknown = null;
      if (runtime && services.sandboxes && !keepSandboxes) {
        try {
          await services.sandboxes.settled();
          const live = await storage.db.selectFrom('sandboxes').select(['id', 'account_id']).where('host_id', '=', config.hostId).where('status', '!=', 'destroyed').execute();
          for (const row of live) await services.sandboxes.destroy(row.account_id, row.id);
        } catch (error) {
          destroyFailure = error;
        }
      }
      await app.close();
      await runtime?.close?.();
      await storage.close();
      if (destroyFailure) throw destroyFailure;
      await new Promise<void>((resolve) => logStream.end(resolve));
      if (!keepData && databaseUrl) await dropPgDatabase(databaseUrl);
      const log = fs.readFileSync(logFile, 'utf8');
      const leaked = [...secrets].filter((secret) => log.includes(secret));
      if (!keepData) fs.rmSync(dataDir, { recursive: true, force: true });
      if (leaked.length) throw new Error(`${leaked.length} credential(s) appeared in the log`);
    },
  };
}
