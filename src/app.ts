// Builds the Fastify app: cross-cutting hooks once (validation, errors, auth, rate limits, OpenAPI),
// then each feature as a plugin with its own routes.
import Fastify, { type FastifyInstance } from 'fastify';
import type { DestinationStream } from 'pino';
import type { Config, Plan } from './config.js';
import { AccountService } from './accounts/service.js';
import { accountRoutes } from './accounts/routes.js';
import { registerAlerts } from './alerts/plugin.js';
import type { AlertService } from './alerts/service.js';
import type { NotificationService } from './alerts/notifications/service.js';
import { isReachable, type Storage } from './core/db/database.js';
import { registerErrorHandling } from './core/error-handler.js';
import { answerRoutingError, MAX_PARAM_LENGTH } from './core/framework-errors.js';
import { registerNulGuard } from './core/nul-guard.js';
import { newId } from './core/ids.js';
import type { Outbox } from './core/outbox/outbox.js';
import { loggerOptions } from './core/logging.js';
import { registerOpenApi } from './core/openapi.js';
import { limiterFactory } from './core/rate-limit.js';
import { registerRequestGuard } from './core/request-guard.js';
import { registerIdempotency } from './core/idempotency/hook.js';
import type { IdempotencyStore } from './core/idempotency/store.js';
import { guardServer } from './core/server-refusals.js';
import { systemRoutes } from './core/system-routes.js';
import { buildSerializer } from './core/serialization.js';
import { buildValidator, describeValidationError } from './core/validation.js';
import type { SandboxRuntime } from './runtime/runtime.js';
import { registerPortsAndPreviews } from './ports/plugin.js';
import { registerPreviewFrontDoor } from './preview/front-door.js';
import type { SandboxService } from './sandboxes/service.js';
import { registerPauses, registerSandboxes, registerSandboxesWithoutRuntime } from './sandboxes/plugin.js';
import { processRoutes } from './processes/routes.js';
import { ProcessService } from './processes/service.js';
import { registerBudgets } from './budgets/plugin.js';
import { registerSnapshots } from './snapshots/plugin.js';
import { SnapshotDirectory } from './snapshots/directory.js';
import { PeerRestores } from './snapshots/peer-restore.js';
import { execRecording } from './sessions/exec-recording.js';
import { terminalRoutes } from './terminal/routes.js';
import { SandboxDirectory } from './sandboxes/directory.js';
import { PriceTable } from './sessions/pricing.js';
import { sessionRoutes } from './sessions/routes.js';
import { SessionService } from './sessions/service.js';
import { SessionSweeper, sweepIntervalMs } from './sessions/sweeper.js';
import { ComputeMeter } from './billing/metering/service.js';
import { SpendCalculator } from './billing/metering/spend.js';
import { MeteredUsageReader } from './billing/usage/reader.js';
import type { PeriodOf } from './billing/usage/period.js';
import { usageRoutes } from './billing/usage/routes.js';
import { QuotaAdmission } from './billing/quota/admission.js';
import { registerQuota } from './billing/quota/plugin.js';
import type { QuotaSweeper } from './billing/quota/sweeper.js';
import { createPlanCatalog } from './billing/plans.js';
import type { UsageReader } from './billing/contract.js';
import { registerBilling, type BillingFeature } from './billing/plugin.js';
import type { BudgetSweeper } from './budgets/sweeper.js';
import { CALLBACK_KIND, callbackDelivery } from './sandboxes/callbacks/delivery.js';
import { registerEvals } from './evals/plugin.js';
import type { EvalService } from './evals/service.js';
import { registerPipelines, type PipelinesFeature } from './pipelines/plugin.js';
import { RunSandboxes } from './pipelines/runs/run-sandboxes.js';
import { createA2aStage } from './pipelines/stages/a2a.js';
import { createEvalStage } from './pipelines/stages/eval.js';
import type { SnapshotService } from './snapshots/service.js';
import { registerMetrics, type MetricsFeature } from './metrics/plugin.js';
import { SandboxCensus } from './sandboxes/counts.js';
import { derivedKey, loadSecretsKey } from './secrets/key.js';
import { responseSealer } from './secrets/response-sealer.js';
import { secretRoutes } from './secrets/routes.js';
import { SecretService } from './secrets/service.js';
import { registerWebhooks, type WebhooksFeature } from './webhooks/plugin.js';
import { createA2aCore, registerA2a, type A2aFeature } from './a2a/plugin.js';
import { registerDashboard } from './dashboard/plugin.js';
import { registerClusterFrontDoor } from './cluster/plugin.js';
import { registerNodes, type NodesFeature } from './nodes/plugin.js';

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
  /** Compute metering: `computeCostUsd(sandboxIds)` answers what a set of sandboxes cost (pipelines' `cost_below`). */
  meter: ComputeMeter;
  /** Compute + LLM spend per sandbox, as budgets see it. */
  spend: SpendCalculator;
  /** Usage per period and per day (billing/usage). */
  usage: UsageReader;
  /** Subscriptions, plan requests, operators and the subscription sweeper (billing/plugin.ts). */
  billing: BillingFeature;
  /** The compute quota: the sweeper (alerts, pauses) and the admission check creates and resumes ask. */
  quota: { sweeper: QuotaSweeper; admission: QuotaAdmission };
  /** Present when the app was built with a runtime. */
  budgets: BudgetSweeper | null;
  /** Eval scenarios, suites and runs (the eval pipeline stage runs through it). */
  evals: EvalService;
  pipelines: PipelinesFeature;
  secrets: SecretService;
  /** Account webhook endpoints and the EventPublisher that fans events out to them. */
  webhooks: WebhooksFeature;
  /** Answers kept for Idempotency-Key retries (pruned every 15 minutes). */
  idempotency: IdempotencyStore;
  /** Present when the app was built with a runtime. */
  snapshots: SnapshotService | null;
  /** Prometheus metrics (served on PADDOCK_METRICS_LISTEN); `metrics.lifecycle` is the sandbox lifecycle's consumer. */
  metrics: MetricsFeature;
  /** Agent delegation: the agent registry (and, as they land, tasks, streams, task webhooks, the A2A protocol). */
  a2a: A2aFeature;
  /** The node registry (scale-out): `nodes.service` is the NodeDirectory; `nodes.registered()` resolves once this node registered after listen(). */
  nodes: NodesFeature;
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
  /** Register the routes only to describe them (`npm run sdk:generate`): `ready()` builds the API description
   * and then rejects with DescribeOnly before any feature starts (no reconcile, sweepers or listeners). */
  describeOnly?: boolean;
}

export class DescribeOnly extends Error {
  constructor() {
    super('built to describe the API only');
  }
}

export async function buildApp({ config, storage, logStream, runtime, describeOnly }: BuildOptions): Promise<BuiltApp> {
  const app = Fastify({
    logger: loggerOptions(config.logLevel, logStream),
    genReqId: () => newId('req'),
    bodyLimit: DEFAULT_BODY_LIMIT_BYTES,
    // Client-chosen ids (session ids, up to 128 characters) and run state keys travel in paths; a state
    // key somewhat over its 256-character limit must reach the handler to get the spec's 400 (a path
    // segment over 400 characters, encoded, is still a 414).
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: answerRoutingError,
    schemaErrorFormatter: describeValidationError,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    // A request without Host is answered as JSON by guardServer, not by Node with an empty body.
    http: { requireHostHeader: false },
    schemaController: { compilersFactory: { buildValidator: buildValidator as never, buildSerializer } },
  });
  const allowedMethods = registerErrorHandling(app);
  registerNulGuard(app);

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

  // Before the routes (its request counter is an onResponse hook) and the limiters (it counts their refusals).
  const metrics = registerMetrics(app, config.metricsListen);
  const limiters = limiterFactory(storage.pgPool, metrics.rateLimits);
  const loginFailures = await limiters.create({ keyPrefix: 'login_failures', points: config.loginMaxFailures, durationSeconds: config.loginFailureWindowSeconds });
  const accounts = new AccountService(storage.db, config, loginFailures, app.log);

  const guard = await registerRequestGuard(app, { config, limiters, authenticate: (credential) => accounts.authenticate(credential) });
  // Before any route is registered: it adds the Idempotency-Key header to the schemas of the routes that declare it.
  const secretsKey = await loadSecretsKey(config.secretsKey, config.dataDir);
  const idempotency = await registerIdempotency(app, {
    db: storage.db,
    sealer: responseSealer(secretsKey),
    fingerprintKey: derivedKey(secretsKey, 'paddock idempotency fingerprints'),
    log: app.log,
    waitMs: config.idempotencyWaitMs,
  });
  await registerOpenApi(app);
  // onReady hooks run in the order they were added: the description's runs before this one, every feature's after.
  if (describeOnly) app.addHook('onReady', async () => Promise.reject(new DescribeOnly()));
  await app.register(systemRoutes(() => isReachable(storage.db)));
  await app.register(accountRoutes(accounts));
  await registerDashboard(app, { accounts, sessionTtlSeconds: config.sessionTtlSeconds, assetsDir: config.dashboardAssetsDir ?? undefined });
  const { alerts, notifications, outbox } = await registerAlerts(app, config, storage, secretsKey);
  const webhooks = await registerWebhooks(app, { config, storage, outbox, secretsKey });

  const meter = new ComputeMeter(storage.db, config.computeRates);
  const sessions = new SessionService(
    storage.db,
    storage.sqlDialect,
    new SandboxDirectory(storage.db),
    new RunSandboxes(storage.db),
    alerts,
    new PriceTable(config.modelPrices),
    config.sessionInactivityTimeoutSeconds,
    app.log,
    meter,
  );
  const spend = new SpendCalculator(meter, sessions);
  const usage = new MeteredUsageReader(storage.db, config.computeRates, sessions, new SandboxDirectory(storage.db));
  const billing = await registerBilling(app, { config, storage, accounts, alerts, usage, log: app.log });
  const periodOf: PeriodOf = (accountId, nowMs) => billing.subscriptions.currentPeriod(accountId, nowMs);
  await app.register(usageRoutes({ usage, periodOf }));
  const plans = createPlanCatalog(config);
  const quotaAdmission = new QuotaAdmission(storage.db, plans);
  // Sandbox callbacks are signed with the account's webhook secret (created with its notification config).
  outbox.handle(
    CALLBACK_KIND,
    callbackDelivery({ allowPrivate: config.allowPrivateWebhooks, allowHttp: config.allowHttpWebhooks }, async (accountId) => (await notifications.config(accountId)).channels.webhook.secret),
  );
  const sweeper = new SessionSweeper(sessions, sweepIntervalMs(config.sessionInactivityTimeoutSeconds), app.log);
  await app.register(sessionRoutes(sessions));
  app.addHook('onReady', async () => sweeper.start());
  app.addHook('onClose', async () => sweeper.stop());
  app.addHook('onClose', async () => sessions.settled());

  const secrets = new SecretService(storage.db, secretsKey);
  await app.register(secretRoutes(secrets));

  let sandboxes: SandboxService | null = null;
  let budgets: BudgetSweeper | null = null;
  let snapshots: SnapshotService | null = null;
  if (runtime) {
    const service = await registerSandboxes(app, {
      config,
      storage,
      runtime,
      alerts,
      outbox,
      spend,
      accounts,
      plans: quotaAdmission,
      secretValues: (accountId, names, field) => secrets.values(accountId, names, field),
      publisher: webhooks.publisher,
      consumers: [execRecording(sessions), metrics.lifecycle],
    });
    sandboxes = service;
    budgets = registerBudgets(app, { config, sandboxes: service, spend, alerts });
    registerPreviewFrontDoor(app, await registerPortsAndPreviews(app, { config, db: storage.db, runtime, sandboxes: service, limiters }));
    await app.register(terminalRoutes(service, runtime, config));
    snapshots = await registerSnapshots(app, { config, db: storage.db, runtime, sandboxes: service, accounts, secretsKey });
    await registerPauses(app, service, snapshots, runtime.name);
    await app.register(processRoutes(new ProcessService(service)));
  }
  const quotaSweeper = registerQuota(app, {
    db: storage.db,
    usage,
    periodOf,
    plans,
    planOf: async (accountId) => (await accounts.getAccount(accountId)).plan,
    alerts,
    pauser: sandboxes ? { pauseAllRunning: (accountId) => sandboxes!.pauseAllRunning(accountId, snapshots) } : null,
    intervalMs: config.billing.quotaCheckIntervalMs,
    log: app.log,
  });
  // A sandbox that starts running brings the account's next quota threshold closer.
  sandboxes?.lifecycle.subscribe({ name: 'compute quota', onEvent: (event) => (['sandbox.created', 'sandbox.running', 'sandbox.resumed'].includes(event.type) ? quotaSweeper.wake() : undefined) });
  const quota = { sweeper: quotaSweeper, admission: quotaAdmission };

  const evals = await registerEvals(app, {
    storage,
    accounts,
    sandboxes,
    costOfSandboxes: async (ids) => [...(await spend.of(ids)).values()].reduce((total, one) => total + one.totalUsd, 0),
  });

  // Tasks follow their runs from inside pipelines' transitions: the follower exists before pipelines.
  const a2aCore = createA2aCore();
  // Registered after sandboxes so that closing the app stops the stage worker (and destroys its
  // stage sandboxes) before the sandbox service settles.
  const pipelines = await registerPipelines(app, {
    config,
    storage,
    notifications,
    sandboxes,
    sessions,
    events: webhooks.publisher,
    planOf: async (accountId) => (await accounts.getAccount(accountId)).plan as Plan,
    bridgeAddress: () => runtime?.hostAddress?.() ?? null,
    computeCostOf: (ids) => meter.computeCostUsd(ids),
    extraExecutors: {
      ...(sandboxes ? { eval: createEvalStage({ evals }) } : {}), // its scenarios run in this node's sandboxes
      a2a: createA2aStage({
        policy: { allowPrivate: config.allowPrivateWebhooks, allowHttp: config.allowHttpWebhooks },
        secretValue: async (accountId, name) => (await secrets.values(accountId, [name], 'config.auth_secret'))[name],
      }),
    },
    observers: [a2aCore.follower],
    missingSecrets: (accountId, names) => secrets.missing(accountId, names),
  });

  const a2a = await registerA2a(app, {
    config,
    storage,
    pipelines: pipelines.pipelines,
    outbox,
    authenticate: (credential) => accounts.authenticate(credential),
    organizationOf: async (accountId) => (await accounts.getAccount(accountId)).name ?? '',
    core: a2aCore,
    pipelineRuns: pipelines,
    limiters,
    secretsKey,
  });

  metrics.readFrom({ sandboxes: runtime ? { counts: new SandboxCensus(storage.db, config.hostId), runtime: runtime.name } : null, pipelines: pipelines.counts, outbox });

  // What narrower scopes may not reach inside: sandboxes marked confidential, their snapshots and sessions.
  const directory = new SandboxDirectory(storage.db);
  guard.useConfidentialLookup(async (kind, accountId, id) => {
    const sandboxId = kind === 'sandbox' ? id : kind === 'session' ? await sessions.sandboxOf(accountId, id) : ((await snapshots?.sandboxOf(accountId, id)) ?? null);
    return sandboxId !== null && directory.confidential(accountId, sandboxId);
  });

  const lost = sandboxes ?? (await registerSandboxesWithoutRuntime(app, { db: storage.db, alerts, spend, outbox, publisher: webhooks.publisher, consumers: [metrics.lifecycle] }));
  const nodes = await registerNodes(app, { config, storage, runtimeName: runtime?.name ?? null, live: directory, reconcile: sandboxes, lost, operators: billing.operators });
  if (snapshots && config.cluster.secret) snapshots.reachPeers(new PeerRestores(nodes.service, config.cluster.secret));
  // After the preview front door (it takes its listeners over), before the guard (which stands in front of both).
  registerClusterFrontDoor(app, { config, nodes: nodes.service, sandboxes: directory, snapshots: new SnapshotDirectory(storage.db), bodyLimitBytes: DEFAULT_BODY_LIMIT_BYTES });
  // Last, so that it stands in front of the preview front door's listeners (taken over on ready too).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });
  app.addHook('onReady', async () => guardServer(app.server, allowedMethods, () => closing));

  const services = { accounts, alerts, notifications, outbox, sandboxes, sessions, meter, spend, usage, billing, quota, budgets, evals, pipelines, secrets };
  return { app, services: { ...services, webhooks, idempotency, snapshots, metrics, a2a, nodes } };
}
