// Nodes of one cluster in this process for `npm run bench cluster`: workers (runc) and api nodes (no
// runtime) on one PostgreSQL database and one cluster secret, each worker on a host network of its own.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp, type AppServices } from '../src/app.js';
import { databaseFile, loadConfig } from '../src/config.js';
import { openStorage, type Storage } from '../src/core/db/database.js';
import { migrateToLatest } from '../src/core/db/migrate.js';
import { createRuntime } from '../src/runtime/index.js';
import { createSandboxNetwork } from '../src/runtime/network/index.js';
import { removeHostNetwork, templatesDir, type BenchNetwork } from './bench-app.js';

export interface BenchNode {
  hostId: string;
  base: string;
  services: AppServices;
  storage: Storage;
  close(): Promise<void>;
}

export interface NodeOptions {
  hostId: string;
  databaseUrl: string;
  secret: string;
  template: string;
  /** A worker's host network; an api node (no runtime) has none. */
  network?: BenchNetwork;
  env?: Record<string, string>;
}

/** Worker host networks apart from the test profiles (10.151-10.249), the other benches' and each other's (prefixes `pc90a`, `pc90b`, …). */
export function workerNetwork(index: number): BenchNetwork {
  const letter = String.fromCharCode(97 + index);
  return { bridgeName: `pdkclu90${letter}br`, subnet: `10.${250 + index}.0.0/16`, tableName: `paddock_clu90${letter}`, interfacePrefix: `pc90${letter}`, netnsPrefix: `pdkclu90${letter}-` };
}

export async function startNode(options: NodeOptions): Promise<BenchNode> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paddock-bench-node-'));
  fs.symlinkSync(templatesDir(options.template), path.join(dataDir, 'templates'));
  const config = loadConfig({
    PADDOCK_DATA: dataDir,
    PADDOCK_LOG_LEVEL: 'warn',
    PADDOCK_RATE_LIMIT_ENTERPRISE: '100000000',
    PADDOCK_WARM_POOL: '0',
    DATABASE_URL: options.databaseUrl,
    PADDOCK_CLUSTER_SECRET: options.secret,
    // One key on every node, as a cluster needs (docs/scale-out.md): derived from the shared secret here.
    PADDOCK_SECRETS_KEY: createHash('sha256').update(options.secret).digest('hex'),
    PADDOCK_ROLE: options.network ? 'worker' : 'api',
    PADDOCK_HOST_ID: options.hostId,
    ...options.env,
  });
  const storage = openStorage({ databaseUrl: config.databaseUrl, sqliteFile: databaseFile(config) });
  await migrateToLatest(storage.db);
  const network = options.network;
  const runtime = network ? createRuntime('runc', { dataDir, network: createSandboxNetwork({ stateDir: path.join(dataDir, 'network'), ...network }) }) : null;
  await runtime?.init();
  const { app, services } = await buildApp({ config, storage, runtime: runtime ?? undefined });
  await app.listen({ host: '127.0.0.1', port: 0 });
  await services.nodes.registered();
  const address = app.server.address();
  const base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  return {
    hostId: options.hostId,
    base,
    services,
    storage,
    async close() {
      // A bench that failed half-way leaves sandboxes running: their mounts would keep the data dir.
      if (services.sandboxes) {
        await services.sandboxes.settled();
        const live = await storage.db.selectFrom('sandboxes').select(['id', 'account_id']).where('host_id', '=', options.hostId).where('status', '!=', 'destroyed').execute();
        for (const row of live) await services.sandboxes.destroy(row.account_id, row.id).catch(() => undefined);
      }
      await app.close();
      await runtime?.close?.();
      await storage.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
      if (network) removeHostNetwork(network);
    },
  };
}
