// Builds the Fastify app: cross-cutting hooks once (validation, errors, auth, rate limits, OpenAPI),
// then each feature as a plugin with its own routes.
import Fastify, { type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import type { Config } from './config.js';
import { AccountService } from './accounts/service.js';
import { accountRoutes } from './accounts/routes.js';
import { registerAlerts } from './alerts/plugin.js';
import type { AlertService } from './alerts/service.js';
import type { NotificationService } from './alerts/notifications/service.js';
import { isReachable, type Storage } from './core/db/database.js';
import { registerErrorHandling } from './core/error-handler.js';
import { newId } from './core/ids.js';
import type { Outbox } from './core/outbox/outbox.js';
import { loggerOptions } from './core/logging.js';
import { registerOpenApi } from './core/openapi.js';
import { limiterFactory } from './core/rate-limit.js';
import { registerRequestGuard } from './core/request-guard.js';
import { systemRoutes } from './core/system-routes.js';
import { buildValidator, describeValidationError } from './core/validation.js';
import type { SandboxRuntime } from './runtime/runtime.js';
import { fileRoutes } from './sandboxes/files-routes.js';
import { registerPortsAndPreviews } from './sandboxes/ports/plugin.js';
import { sandboxRoutes } from './sandboxes/routes.js';
import { SandboxService } from './sandboxes/service.js';
import { SandboxDirectory } from './sandboxes/directory.js';
import { PriceTable } from './sessions/pricing.js';
import { sessionRoutes } from './sessions/routes.js';
import { SessionService } from './sessions/service.js';
import { SessionSweeper, sweepIntervalMs } from './sessions/sweeper.js';
import { terminalRoutes } from './sandboxes/terminal/routes.js';
import { SandboxMonitor } from './sandboxes/monitor.js';
import { pauseRoutes } from './sandboxes/pause-routes.js';
import { registerSnapshots } from './sandboxes/snapshots/plugin.js';
import type { SnapshotService } from './sandboxes/snapshots/service.js';
import { loadSecretsKey } from './secrets/key.js';
import { secretRoutes } from './secrets/routes.js';
import { SecretService } from './secrets/service.js';

export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

export interface AppServices {
  accounts: AccountService;
  alerts: AlertService;
  notifications: NotificationService;
  /** Durable outbound deliveries (notification channels, callbacks). */
  outbox: Outbox;
  /** Present when the app was built with a runtime. */
  sandboxes: SandboxService | null;
  sessions: SessionService;
  secrets: SecretService;
  /** Present when the app was built with a runtime. */
  snapshots: SnapshotService | null;
}

export interface BuiltApp {
  app: FastifyInstance;
  services: AppServices;
}

export interface BuildOptions {
  config: Config;
  storage: Storage;
  logStream?: DestinationStream;
  /** The sandbox runtime, initialized; without it the sandbox endpoints are not served. */
  runtime?: SandboxRuntime;
}

export async function buildApp({ config, storage, logStream, runtime }: BuildOptions): Promise<BuiltApp> {
  const app = Fastify({
    logger: loggerOptions(config.logLevel, logStream),
    genReqId: () => newId('req'),
    bodyLimit: DEFAULT_BODY_LIMIT_BYTES,
    // Client-chosen ids (session ids, up to 128 characters) travel in paths.
    routerOptions: { maxParamLength: 256 },
    schemaErrorFormatter: describeValidationError,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    schemaController: { compilersFactory: { buildValidator: buildValidator as never } },
  });
  registerErrorHandling(app);

  // JSON only: text/plain on a JSON endpoint is a 415, and an empty JSON body (some clients send the
  // header on DELETE) is no body rather than an error.
  app.removeContentTypeParser('text/plain');
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body === '' || (typeof body === 'string' && body.trim() === '')) return done(null, undefined);
    parseJson(request, body as string, done);
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  // A refused WebSocket upgrade (401, 404, …) is answered over plain HTTP; nothing else will ever close
  // that socket, so close it once the answer is out.
  app.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode >= 400 && request.headers.upgrade?.toLowerCase() === 'websocket') request.raw.socket.destroy();
  });
  // Routes registered by third-party plugins (the docs page) are open.
  app.addHook('onRoute', (route) => {
    if (route.url.startsWith('/docs')) route.config = { ...route.config, access: { kind: 'open', limit: 'system' } };
  });

  const limiters = limiterFactory(storage.pgPool);
  const loginFailures = await limiters.create({ keyPrefix: 'login_failures', points: config.loginMaxFailures, durationSeconds: config.loginFailureWindowSeconds });
  const accounts = new AccountService(storage.db, config, loginFailures, app.log);

  await registerRequestGuard(app, { config, limiters, authenticate: (credential) => accounts.authenticate(credential) });
  await registerOpenApi(app);
  await app.register(systemRoutes(() => isReachable(storage.db)));
  await app.register(accountRoutes(accounts));
  const { alerts, notifications, outbox } = await registerAlerts(app, config, storage);

  const sessions = new SessionService(storage.db, storage.dialect, new SandboxDirectory(storage.db), alerts, new PriceTable(config.modelPrices), config.sessionInactivityTimeoutSeconds, app.log);
  const sweeper = new SessionSweeper(sessions, sweepIntervalMs(config.sessionInactivityTimeoutSeconds), app.log);
  await app.register(sessionRoutes(sessions));
  app.addHook('onReady', async () => sweeper.start());
  app.addHook('onClose', async () => sweeper.stop());

  const secretsKey = await loadSecretsKey(config.secretsKey, config.dataDir);
  const secrets = new SecretService(storage.db, secretsKey);
  await app.register(secretRoutes(secrets));

  let sandboxes: SandboxService | null = null;
  let snapshots: SnapshotService | null = null;
  if (runtime) {
    sandboxes = new SandboxService(storage.db, storage.dialect, runtime, config, app.log, alerts);
    await sandboxes.reconcile();
    sandboxes.onExec(({ accountId, sandboxId, command, outcome }) =>
      sessions.recordCommand({ accountId, sandboxId, command, exitCode: outcome.exit_code, output: outcome.output, durationMs: outcome.duration_ms, timedOut: outcome.timed_out, truncated: outcome.truncated, error: outcome.error }),
    );
    await app.register(sandboxRoutes(sandboxes, config.dataDir, runtime));
    await app.register(fileRoutes(sandboxes));
    await registerPortsAndPreviews(app, { config, db: storage.db, runtime, sandboxes, limiters });
    await app.register(terminalRoutes(sandboxes, runtime, config));
    app.addHook('onClose', async () => sandboxes!.settled());
    const service = sandboxes;
    service.useSecretValues((accountId, names, field) => secrets.values(accountId, names, field));
    snapshots = await registerSnapshots(app, { config, db: storage.db, dialect: storage.dialect, runtime, sandboxes: service, secretsKey });
    await app.register(pauseRoutes(service, runtime.name));
    const monitor = new SandboxMonitor(service, app.log);
    app.addHook('onReady', async () => monitor.start());
    app.addHook('onClose', async () => monitor.stop());
  }

  return { app, services: { accounts, alerts, notifications, outbox, sandboxes, sessions, secrets, snapshots } };
}
