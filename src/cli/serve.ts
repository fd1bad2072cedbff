// `paddock serve`: migrate, build the app, create the first account on an empty database, listen,
// and drain on SIGTERM/SIGINT.
import { buildApp } from '../app.js';
import { storageOptions, type Config } from '../config.js';
import { openStorage } from '../core/db/database.js';
import { migrateToLatest } from '../core/db/migrate.js';
import { stateGatewayPorts } from '../pipelines/state/gateway.js';
import { createRuntime, detectDefaultRuntime, type SandboxRuntime } from '../runtime/index.js';

const BOOTSTRAP_EMAIL = 'admin@paddock.local';

export async function serve(config: Config): Promise<void> {
  const storage = openStorage(storageOptions(config));
  await migrateToLatest(storage.db);
  // An api node runs no sandboxes: no runtime, warm pool or sandbox stages; it forwards them to workers.
  const runtime = config.cluster.role === 'api' ? undefined : await openRuntime(config);
  const { app, services } = await buildApp({ config, storage, runtime });

  if (config.bootstrap && (await services.accounts.countAccounts()) === 0) {
    const password = (await import('node:crypto')).randomBytes(12).toString('base64url');
    const { api_key } = await services.accounts.signup({ email: BOOTSTRAP_EMAIL, password, name: 'Admin' }, config.bootstrapPlan);
    process.stdout.write(`first account: ${BOOTSTRAP_EMAIL} (password ${password}, plan ${config.bootstrapPlan})\nAPI key: ${api_key}\n`);
  }

  await app.listen({ host: config.host, port: config.port });
  await services.nodes.registered();
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const metrics = services.metrics.address();
  if (metrics) process.stdout.write(`metrics on http://${metrics.host.includes(':') ? `[${metrics.host}]` : metrics.host}:${metrics.port}/metrics\n`);
  // Last: it tells whoever started the server that it is ready.
  process.stdout.write(`listening on http://${host}:${port}\n`);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'draining');
    await app.close();
    await runtime?.close?.();
    await storage.close();
    (app.log as unknown as { flush?: () => void }).flush?.();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/** The configured runtime, or with `auto` gVisor when a working runsc is present, else runc with a warning. */
async function openRuntime(config: Config): Promise<SandboxRuntime> {
  let name = config.runtime;
  if (name === 'auto') {
    const choice = await detectDefaultRuntime();
    if (choice.warning) process.stdout.write(`warning: ${choice.warning}\n`);
    name = choice.name;
  }
  const runtime = createRuntime(name, { dataDir: config.dataDir, exposedHostPorts: stateGatewayPorts(config), networkNames: config.network });
  await runtime.init();
  return runtime;
}
