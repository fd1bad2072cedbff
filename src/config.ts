// Every setting Paddock reads, from flags and environment, validated once at start.
// Longer than 350 lines: one reader for every environment variable and flag, so each is validated in one
// place with one kind of error message; the parsing helpers it uses are shared and short.
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';
import { networkNameProblem, type NetworkNameOption } from './runtime/network/index.js';
import { TEMPLATE_NAMES } from './runtime/templates/catalog.js';

export type { Plan } from './core/db/column-values.js';
import type { Plan } from './core/db/column-values.js';

/** A model's list price in an operator price file (and in the sessions feature's built-in table). */
export interface ModelPrice {
  /** Glob over the lower-cased model name; `*` matches any run of characters. */
  match: string;
  input_usd_per_million_tokens: number;
  output_usd_per_million_tokens: number;
}
export type RuntimeChoice = 'gvisor' | 'runc' | 'auto';

export interface Config {
  host: string;
  port: number;
  dataDir: string;
  /** Names this server's runtime among servers sharing one database: each acts only on its own sandboxes. */
  hostId: string;
  databaseUrl: string | null;
  /** Connections this process may open to PostgreSQL at once (PADDOCK_DATABASE_POOL_SIZE). */
  databasePoolSize: number;
  logLevel: string;
  runtime: RuntimeChoice;
  /** Requests per minute per account, by plan. */
  rateLimitPerMinute: Record<Plan, number>;
  /** Requests per minute per client IP on open endpoints (signup, login, pricing). */
  openRateLimitPerMinute: number;
  /** Requests per minute per client IP on agent card discovery. */
  discoveryRateLimitPerMinute: number;
  /** Requests per minute per client IP on health, readiness and docs endpoints. */
  systemRateLimitPerMinute: number;
  /** Failed logins allowed per email within `loginFailureWindowSeconds` before 429. */
  loginMaxFailures: number;
  loginFailureWindowSeconds: number;
  sessionTtlSeconds: number;
  /** Plan given to the first account `serve` creates on an empty database. */
  bootstrapPlan: Plan;
  bootstrap: boolean;
  /** Install command per agent name (`agent_a`, `agent_b`, `agent_c`), run inside the sandbox. */
  agentCatalog: Record<string, string>;
  /** How long a terminal session outlives its dropped WebSocket before its shell is killed. */
  terminalGraceSeconds: number;
  /** Domain under which previews are served as `<sandbox_id>-<port>.<previewHost>`; null means
   * `localhost:<the port the server listens on>`, which browsers resolve to this machine. */
  previewHost: string | null;
  previewScheme: 'http' | 'https';
  /** Requests per minute per previewed port. */
  previewRateLimitPerMinute: number;
  /** Wrong preview passwords allowed per port within `previewPasswordFailureWindowSeconds` before 429. */
  previewPasswordMaxFailures: number;
  previewPasswordFailureWindowSeconds: number;
  /** SMTP server for the email channel (`smtp://user:pass@host:587`, `smtps://…`); null: email deliveries fail saying so. */
  smtpUrl: string | null;
  emailFrom: string;
  /** Outbound notification and callback URLs may reach private, loopback and link-local addresses (tests, closed networks). */
  allowPrivateWebhooks: boolean;
  /** Outbound notification and callback URLs may be plain http. */
  allowHttpWebhooks: boolean;
  outbox: {
    pollIntervalMs: number;
    /** Delay before the second attempt; each later one waits 4× longer, capped at 6 hours. */
    backoffBaseMs: number;
    maxAttempts: number;
    attemptTimeoutMs: number;
    retentionDays: number;
  };
  /** An active session that receives no event for this long becomes `timeout`. */
  sessionInactivityTimeoutSeconds: number;
  /** Operator model prices (PADDOCK_MODEL_PRICES_FILE), tried before the built-in table. */
  modelPrices: ModelPrice[];
  /** What a running sandbox costs (PADDOCK_COMPUTE_USD_PER_VCPU_HOUR, PADDOCK_COMPUTE_USD_PER_GIB_HOUR). */
  computeRates: { usdPerVcpuHour: number; usdPerGibHour: number };
  /** Longest wait between two budget checks; checks also happen the moment a threshold is predicted to be crossed. */
  budgetCheckIntervalMs: number;
  /** How long a request repeating an Idempotency-Key waits for the first one's answer before a 409. */
  idempotencyWaitMs: number;
  /** Longest wait between two checks of A2A task costs against their agent's max_cost_per_task (each run event also checks). */
  a2aBudgetIntervalMs: number;
  pipelines: {
    /** Stage attempts one server process runs at the same time (parallel branches share it). */
    concurrency: number;
    /** A running stage's lease; a worker that stops heartbeating loses its stages after this long. */
    leaseSeconds: number;
    /** How often a worker looks for ready stages, expired leases and approval deadlines. */
    pollIntervalMs: number;
    /** Port of the state gateway on the sandbox bridge address (commands read/write their run's state); 0 turns it off. */
    stateGatewayPort: number;
  };
  /** 32-byte key (PADDOCK_SECRETS_KEY) that encrypts account secrets, webhook signing secrets, chat webhook URLs, A2A push-notification credentials and outbox targets, and signs snapshot download URLs;
   * null: one is generated into `<dataDir>/keys/secrets.key` on first start (single node only). */
  secretsKey: Buffer | null;
  /** Base URL clients reach this server at (PADDOCK_PUBLIC_URL), for links such as snapshot downloads;
   * null: taken from the request's Host header. */
  publicUrl: string | null;
  /** The dashboard's built files (PADDOCK_DASHBOARD_DIR); null: dist/dashboard-assets beside the code. */
  dashboardAssetsDir: string | null;
  snapshots: {
    /** Where the local snapshot store keeps archives. */
    dir: string;
    perSandbox: number;
    maxBytes: number;
    accountMaxBytes: number;
    downloadUrlTtlSeconds: number;
  };
  /** Pre-started sandboxes kept ready per template (PADDOCK_WARM_POOL); empty turns the warm pool off. */
  warmPool: Record<string, number>;
  /** How often an open task stream (GET /v1/a2a/tasks/{id}/stream) sends a heartbeat comment. */
  a2aStreamHeartbeatMs: number;
  /** Where GET /metrics (Prometheus) is served (PADDOCK_METRICS_LISTEN), apart from the API port; null: not served. */
  metricsListen: ListenAddress | null;
  billing: BillingConfig;
  cluster: ClusterConfig;
  /** This server's sandbox network on the host (PADDOCK_NETWORK_*), so several servers can share one host; an
   * option left out takes the network layer's default (bridge paddock0, 10.247.0.0/16, table paddock, pdk, paddock-). */
  network: Partial<Record<NetworkNameOption, string>>;
}

/** What a node does (`paddock serve --role`): `all` serves the API and runs sandboxes (one process, the
 * default); `api` serves the API and runs none, forwarding sandbox requests to workers; `worker` runs
 * sandboxes and answers the requests api nodes forward to it. */
export type NodeRole = 'all' | 'api' | 'worker';

export interface ClusterConfig {
  role: NodeRole;
  /** Where other nodes reach this one (PADDOCK_NODE_ADDRESS, an http:// origin); null: derived at listen from
   * the listening address (a wildcard host becomes the machine's first non-internal IPv4 address). */
  nodeAddress: string | null;
  /** Shared by every node (PADDOCK_CLUSTER_SECRET, at least 32 bytes): signs node-to-node requests; null on a
   * lone node. Required for `api` and `worker`. */
  secret: Buffer | null;
  /** How often a node writes its heartbeat. */
  heartbeatMs: number;
  /** A node whose heartbeat is older than this is declared lost (its sandboxes go `error`, reason `node_lost`). */
  deadAfterSeconds: number;
  /** Sandboxes this node runs at most (PADDOCK_NODE_MAX_SANDBOXES); null: derived from its memory (one per 256 MiB). */
  maxSandboxes: number | null;
}

/** A plan's price and limits as configured; null means custom price (enterprise) or unlimited. */
export interface PlanSettings {
  priceUsdPerMonth: number | null;
  concurrentSandboxes: number | null;
  computeHoursPerMonth: number | null;
}

export interface BillingConfig {
  /** `manual` (default): operators approve plan requests; `stripe`: Stripe Checkout, Portal and webhooks. */
  provider: 'manual' | 'stripe';
  /** Price and limits per plan (PADDOCK_PLAN_<PLAN>_PRICE_USD, _CONCURRENT_SANDBOXES, _COMPUTE_HOURS); request rates are rateLimitPerMinute. */
  plans: Record<Plan, PlanSettings>;
  /** Emails of operator accounts (PADDOCK_OPERATORS, comma-separated), besides the first account created. */
  operators: string[];
  /** How long a past-due subscription keeps its plan before the free plan's limits apply. */
  graceDays: number;
  /** Longest wait between two compute-quota checks of an account with running sandboxes (checks also happen when the quota is predicted to be reached). */
  quotaCheckIntervalMs: number;
  stripe: StripeConfig | null;
}

export interface StripeConfig {
  secretKey: string;
  webhookSecret: string;
  /** Stripe price ids per paid plan; enterprise without one becomes a request to the operator. */
  prices: { pro: string; team: string; enterprise: string | null };
  /** A Stripe-compatible API to call instead of api.stripe.com (PADDOCK_STRIPE_API_URL, e.g. a local server speaking Stripe's API for tests); null: Stripe's own. */
  apiUrl: string | null;
}

export interface ListenAddress {
  host: string;
  port: number;
}

export const DEFAULT_AGENT_CATALOG: Record<string, string> = {
  agent_a: 'npm install -g @anthropic-ai/claude-code',
  agent_b: 'npm install -g @openai/codex',
  agent_c: 'npm install -g @google/gemini-cli',
};

function agentCatalog(raw: string | undefined): Record<string, string> {
  if (!raw) return DEFAULT_AGENT_CATALOG;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError('PADDOCK_AGENT_CATALOG must be a JSON object mapping agent names to install commands');
  }
  if (typeof parsed !== 'object' || parsed === null || Object.values(parsed).some((v) => typeof v !== 'string')) {
    throw new ConfigError('PADDOCK_AGENT_CATALOG must be a JSON object mapping agent names to install commands');
  }
  return { ...DEFAULT_AGENT_CATALOG, ...(parsed as Record<string, string>) };
}

export class ConfigError extends Error {}

type Source = Record<string, string | undefined>;

const PLANS: Plan[] = ['free', 'pro', 'team', 'enterprise'];

function integer(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw)) throw new ConfigError(`${name} must be an integer, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function oneOf<T extends string>(name: string, raw: string | undefined, allowed: readonly T[], fallback: T): T {
  if (raw === undefined || raw === '') return fallback;
  if (!allowed.includes(raw as T)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${raw}"`);
  return raw as T;
}

function previewHost(raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return null;
  const value = raw.trim().toLowerCase();
  if (!/^[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:\d{1,5})?$/.test(value)) {
    throw new ConfigError(`PADDOCK_PREVIEW_HOST must be a host name with an optional port (e.g. preview.example.com or localhost:8080), got "${raw}"`);
  }
  return value;
}

/** `flags` are CLI options (`--port` → `port`); they win over `env`. */
export function loadConfig(env: Source = process.env, flags: Source = {}): Config {
  const databaseUrl = env.DATABASE_URL || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) {
    throw new ConfigError('DATABASE_URL must start with postgres:// or postgresql://');
  }
  const dataDir = path.resolve(flags.data ?? env.PADDOCK_DATA ?? './data');
  return {
    host: flags.host ?? env.PADDOCK_HOST ?? '127.0.0.1',
    port: integer('port (--port / PADDOCK_PORT)', flags.port ?? env.PADDOCK_PORT, 8080, 0, 65535),
    dataDir,
    hostId: hostId(env.PADDOCK_HOST_ID, dataDir),
    databaseUrl,
    databasePoolSize: integer('PADDOCK_DATABASE_POOL_SIZE', env.PADDOCK_DATABASE_POOL_SIZE, 10, 2, 1000),
    logLevel: oneOf('PADDOCK_LOG_LEVEL', env.PADDOCK_LOG_LEVEL, ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    runtime: oneOf('PADDOCK_RUNTIME', env.PADDOCK_RUNTIME, ['gvisor', 'runc', 'auto'] as const, 'auto'),
    rateLimitPerMinute: {
      free: integer('PADDOCK_RATE_LIMIT_FREE', env.PADDOCK_RATE_LIMIT_FREE, 60, 1, 1_000_000),
      pro: integer('PADDOCK_RATE_LIMIT_PRO', env.PADDOCK_RATE_LIMIT_PRO, 300, 1, 1_000_000),
      team: integer('PADDOCK_RATE_LIMIT_TEAM', env.PADDOCK_RATE_LIMIT_TEAM, 1000, 1, 1_000_000),
      enterprise: integer('PADDOCK_RATE_LIMIT_ENTERPRISE', env.PADDOCK_RATE_LIMIT_ENTERPRISE, 5000, 1, 100_000_000),
    },
    openRateLimitPerMinute: integer('PADDOCK_RATE_LIMIT_OPEN', env.PADDOCK_RATE_LIMIT_OPEN, 100, 1, 1_000_000),
    discoveryRateLimitPerMinute: integer('PADDOCK_RATE_LIMIT_DISCOVERY', env.PADDOCK_RATE_LIMIT_DISCOVERY, 100, 1, 1_000_000),
    systemRateLimitPerMinute: integer('PADDOCK_RATE_LIMIT_SYSTEM', env.PADDOCK_RATE_LIMIT_SYSTEM, 1200, 1, 100_000_000),
    loginMaxFailures: integer('PADDOCK_LOGIN_MAX_FAILURES', env.PADDOCK_LOGIN_MAX_FAILURES, 5, 1, 1000),
    loginFailureWindowSeconds: integer('PADDOCK_LOGIN_FAILURE_WINDOW_SECONDS', env.PADDOCK_LOGIN_FAILURE_WINDOW_SECONDS, 900, 1, 86_400),
    sessionTtlSeconds: integer('PADDOCK_SESSION_TTL_SECONDS', env.PADDOCK_SESSION_TTL_SECONDS, 7 * 86_400, 60, 90 * 86_400),
    bootstrapPlan: oneOf('PADDOCK_BOOTSTRAP_PLAN', env.PADDOCK_BOOTSTRAP_PLAN, PLANS, 'enterprise'),
    bootstrap: (flags.bootstrap ?? env.PADDOCK_BOOTSTRAP ?? '1') !== '0',
    agentCatalog: agentCatalog(env.PADDOCK_AGENT_CATALOG),
    terminalGraceSeconds: integer('PADDOCK_TERMINAL_GRACE_SECONDS', env.PADDOCK_TERMINAL_GRACE_SECONDS, 60, 1, 86_400),
    previewHost: previewHost(env.PADDOCK_PREVIEW_HOST),
    previewScheme: oneOf('PADDOCK_PREVIEW_SCHEME', env.PADDOCK_PREVIEW_SCHEME, ['http', 'https'] as const, 'http'),
    previewRateLimitPerMinute: integer('PADDOCK_PREVIEW_RATE_LIMIT', env.PADDOCK_PREVIEW_RATE_LIMIT, 100, 1, 100_000_000),
    previewPasswordMaxFailures: integer('PADDOCK_PREVIEW_PASSWORD_MAX_FAILURES', env.PADDOCK_PREVIEW_PASSWORD_MAX_FAILURES, 10, 1, 1000),
    previewPasswordFailureWindowSeconds: integer('PADDOCK_PREVIEW_PASSWORD_FAILURE_WINDOW_SECONDS', env.PADDOCK_PREVIEW_PASSWORD_FAILURE_WINDOW_SECONDS, 900, 1, 86_400),
    smtpUrl: smtpUrl(env.SMTP_URL),
    emailFrom: env.PADDOCK_EMAIL_FROM || 'Paddock <paddock@localhost>',
    allowPrivateWebhooks: flag('PADDOCK_ALLOW_PRIVATE_WEBHOOKS', env.PADDOCK_ALLOW_PRIVATE_WEBHOOKS, false),
    allowHttpWebhooks: flag('PADDOCK_ALLOW_HTTP_WEBHOOKS', env.PADDOCK_ALLOW_HTTP_WEBHOOKS, false),
    outbox: {
      pollIntervalMs: integer('PADDOCK_OUTBOX_POLL_INTERVAL_MS', env.PADDOCK_OUTBOX_POLL_INTERVAL_MS, 1000, 10, 60_000),
      backoffBaseMs: integer('PADDOCK_OUTBOX_BACKOFF_BASE_MS', env.PADDOCK_OUTBOX_BACKOFF_BASE_MS, 5000, 1, 3_600_000),
      maxAttempts: integer('PADDOCK_OUTBOX_MAX_ATTEMPTS', env.PADDOCK_OUTBOX_MAX_ATTEMPTS, 8, 1, 50),
      attemptTimeoutMs: integer('PADDOCK_OUTBOX_ATTEMPT_TIMEOUT_MS', env.PADDOCK_OUTBOX_ATTEMPT_TIMEOUT_MS, 10_000, 100, 300_000),
      retentionDays: integer('PADDOCK_OUTBOX_RETENTION_DAYS', env.PADDOCK_OUTBOX_RETENTION_DAYS, 30, 0, 3650),
    },
    sessionInactivityTimeoutSeconds: integer('PADDOCK_SESSION_INACTIVITY_TIMEOUT_SECONDS', env.PADDOCK_SESSION_INACTIVITY_TIMEOUT_SECONDS, 1800, 1, 30 * 86_400),
    modelPrices: modelPrices(env.PADDOCK_MODEL_PRICES_FILE),
    computeRates: {
      usdPerVcpuHour: decimal('PADDOCK_COMPUTE_USD_PER_VCPU_HOUR', env.PADDOCK_COMPUTE_USD_PER_VCPU_HOUR, 0.0504, 0, 1_000_000),
      usdPerGibHour: decimal('PADDOCK_COMPUTE_USD_PER_GIB_HOUR', env.PADDOCK_COMPUTE_USD_PER_GIB_HOUR, 0.0162, 0, 1_000_000),
    },
    budgetCheckIntervalMs: integer('PADDOCK_BUDGET_CHECK_INTERVAL_MS', env.PADDOCK_BUDGET_CHECK_INTERVAL_MS, 1000, 10, 60_000),
    idempotencyWaitMs: integer('PADDOCK_IDEMPOTENCY_WAIT_MS', env.PADDOCK_IDEMPOTENCY_WAIT_MS, 10_000, 0, 60_000),
    a2aBudgetIntervalMs: integer('PADDOCK_A2A_BUDGET_INTERVAL_MS', env.PADDOCK_A2A_BUDGET_INTERVAL_MS, 2000, 50, 300_000),
    pipelines: {
      concurrency: integer('PADDOCK_PIPELINE_CONCURRENCY', env.PADDOCK_PIPELINE_CONCURRENCY, 8, 1, 256),
      leaseSeconds: integer('PADDOCK_PIPELINE_LEASE_SECONDS', env.PADDOCK_PIPELINE_LEASE_SECONDS, 10, 2, 600),
      pollIntervalMs: integer('PADDOCK_PIPELINE_POLL_INTERVAL_MS', env.PADDOCK_PIPELINE_POLL_INTERVAL_MS, 250, 10, 60_000),
      stateGatewayPort: integer('PADDOCK_STATE_GATEWAY_PORT', env.PADDOCK_STATE_GATEWAY_PORT, 7071, 0, 65535),
    },
    secretsKey: secretsKey(env.PADDOCK_SECRETS_KEY),
    publicUrl: publicUrl(env.PADDOCK_PUBLIC_URL),
    dashboardAssetsDir: env.PADDOCK_DASHBOARD_DIR || null,
    snapshots: {
      dir: path.resolve(env.PADDOCK_SNAPSHOT_DIR || path.join(flags.data ?? env.PADDOCK_DATA ?? './data', 'snapshots')),
      perSandbox: integer('PADDOCK_SNAPSHOTS_PER_SANDBOX', env.PADDOCK_SNAPSHOTS_PER_SANDBOX, 20, 1, 10_000),
      maxBytes: integer('PADDOCK_SNAPSHOT_MAX_BYTES', env.PADDOCK_SNAPSHOT_MAX_BYTES, 2 * 1024 ** 3, 1, 2 ** 50),
      accountMaxBytes: integer('PADDOCK_SNAPSHOT_ACCOUNT_MAX_BYTES', env.PADDOCK_SNAPSHOT_ACCOUNT_MAX_BYTES, 10 * 1024 ** 3, 1, 2 ** 52),
      downloadUrlTtlSeconds: integer('PADDOCK_SNAPSHOT_URL_TTL_SECONDS', env.PADDOCK_SNAPSHOT_URL_TTL_SECONDS, 900, 1, 7 * 86_400),
    },
    warmPool: warmPool(env.PADDOCK_WARM_POOL),
    metricsListen: metricsListen(env.PADDOCK_METRICS_LISTEN),
    a2aStreamHeartbeatMs: integer('PADDOCK_A2A_STREAM_HEARTBEAT_MS', env.PADDOCK_A2A_STREAM_HEARTBEAT_MS, 15_000, 100, 300_000),
    billing: billingConfig(env),
    cluster: clusterConfig(env, flags, databaseUrl),
    network: sandboxNetworkNames(env),
  };
}

function clusterConfig(env: Source, flags: Source, databaseUrl: string | null): ClusterConfig {
  const role = oneOf('role (--role / PADDOCK_ROLE)', flags.role ?? env.PADDOCK_ROLE, ['all', 'api', 'worker'] as const, 'all');
  const rawSecret = env.PADDOCK_CLUSTER_SECRET ?? '';
  if (rawSecret !== '' && Buffer.byteLength(rawSecret) < 32) throw new ConfigError('PADDOCK_CLUSTER_SECRET must be at least 32 bytes (openssl rand -base64 32)');
  if (role !== 'all' && !databaseUrl) throw new ConfigError(`--role ${role} needs DATABASE_URL: the nodes of a cluster share one PostgreSQL database`);
  if (role !== 'all' && rawSecret === '') throw new ConfigError(`--role ${role} needs PADDOCK_CLUSTER_SECRET (the same on every node) to authenticate node-to-node requests`);
  // Each node would otherwise generate its own: secrets, snapshot links and idempotent replays would break across nodes.
  if (rawSecret !== '' && !env.PADDOCK_SECRETS_KEY) throw new ConfigError('a cluster node (PADDOCK_CLUSTER_SECRET set) needs PADDOCK_SECRETS_KEY, the same on every node (openssl rand -base64 32)');
  const heartbeatMs = integer('PADDOCK_NODE_HEARTBEAT_MS', env.PADDOCK_NODE_HEARTBEAT_MS, 2000, 100, 60_000);
  const deadAfterSeconds = integer('PADDOCK_NODE_DEAD_AFTER_SECONDS', env.PADDOCK_NODE_DEAD_AFTER_SECONDS, 15, 1, 3600);
  if (deadAfterSeconds * 1000 < heartbeatMs * 3) throw new ConfigError('PADDOCK_NODE_DEAD_AFTER_SECONDS must be at least three heartbeats (PADDOCK_NODE_HEARTBEAT_MS)');
  const maxSandboxes = env.PADDOCK_NODE_MAX_SANDBOXES ? integer('PADDOCK_NODE_MAX_SANDBOXES', env.PADDOCK_NODE_MAX_SANDBOXES, 0, 1, 100_000) : null;
  return {
    role,
    nodeAddress: httpOrigin('PADDOCK_NODE_ADDRESS', env.PADDOCK_NODE_ADDRESS, 'http://10.0.0.5:8080'),
    secret: rawSecret === '' ? null : Buffer.from(rawSecret),
    heartbeatMs,
    deadAfterSeconds,
    maxSandboxes,
  };
}

const NETWORK_NAME_VARIABLES: Record<NetworkNameOption, string> = {
  bridgeName: 'PADDOCK_NETWORK_BRIDGE',
  subnet: 'PADDOCK_NETWORK_SUBNET',
  tableName: 'PADDOCK_NETWORK_TABLE',
  interfacePrefix: 'PADDOCK_NETWORK_IF_PREFIX',
  netnsPrefix: 'PADDOCK_NETWORK_NETNS_PREFIX',
};

function sandboxNetworkNames(env: Source): Partial<Record<NetworkNameOption, string>> {
  const names: Partial<Record<NetworkNameOption, string>> = {};
  for (const [option, variable] of Object.entries(NETWORK_NAME_VARIABLES) as [NetworkNameOption, string][]) {
    const value = env[variable];
    if (value === undefined || value === '') continue;
    const problem = networkNameProblem(option, value);
    if (problem) throw new ConfigError(`${variable} ${problem}, got "${value}"`);
    names[option] = value;
  }
  return names;
}

/** The spec's plans: free, pro 29 USD (10 concurrent, 100 h), team 99 USD (50, 500 h), enterprise custom and unlimited. */
export const DEFAULT_PLAN_SETTINGS: Record<Plan, PlanSettings> = {
  free: { priceUsdPerMonth: 0, concurrentSandboxes: 2, computeHoursPerMonth: 10 },
  pro: { priceUsdPerMonth: 29, concurrentSandboxes: 10, computeHoursPerMonth: 100 },
  team: { priceUsdPerMonth: 99, concurrentSandboxes: 50, computeHoursPerMonth: 500 },
  enterprise: { priceUsdPerMonth: null, concurrentSandboxes: null, computeHoursPerMonth: null },
};

/** A limit that may be `unlimited` (or a price that may be `custom`): null then. */
function limitOrNone(name: string, raw: string | undefined, fallback: number | null, word: 'unlimited' | 'custom'): number | null {
  if (raw === undefined || raw === '') return fallback;
  if (raw.toLowerCase() === word) return null;
  return decimal(name, raw, 0, 0, 1_000_000_000);
}

function billingConfig(env: Source): BillingConfig {
  const plans = {} as Record<Plan, PlanSettings>;
  for (const plan of PLANS) {
    const prefix = `PADDOCK_PLAN_${plan.toUpperCase()}_`;
    const defaults = DEFAULT_PLAN_SETTINGS[plan];
    const concurrent = limitOrNone(`${prefix}CONCURRENT_SANDBOXES`, env[`${prefix}CONCURRENT_SANDBOXES`], defaults.concurrentSandboxes, 'unlimited');
    if (concurrent !== null && !Number.isInteger(concurrent)) throw new ConfigError(`${prefix}CONCURRENT_SANDBOXES must be an integer or "unlimited", got "${concurrent}"`);
    plans[plan] = {
      priceUsdPerMonth: limitOrNone(`${prefix}PRICE_USD`, env[`${prefix}PRICE_USD`], defaults.priceUsdPerMonth, 'custom'),
      concurrentSandboxes: concurrent,
      computeHoursPerMonth: limitOrNone(`${prefix}COMPUTE_HOURS`, env[`${prefix}COMPUTE_HOURS`], defaults.computeHoursPerMonth, 'unlimited'),
    };
  }
  const operators = (env.PADDOCK_OPERATORS ?? '')
    .split(',')
    .map((email) => email.trim().toLowerCase())
    .filter(Boolean);
  for (const email of operators) if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw new ConfigError(`PADDOCK_OPERATORS must be comma-separated emails, got "${email}"`);
  const provider = oneOf('PADDOCK_BILLING_PROVIDER', env.PADDOCK_BILLING_PROVIDER, ['manual', 'stripe'] as const, 'manual');
  let stripe: StripeConfig | null = null;
  if (provider === 'stripe') {
    const required = ['PADDOCK_STRIPE_SECRET_KEY', 'PADDOCK_STRIPE_WEBHOOK_SECRET', 'PADDOCK_STRIPE_PRICE_PRO', 'PADDOCK_STRIPE_PRICE_TEAM'];
    const missing = required.filter((name) => !env[name]);
    if (missing.length) throw new ConfigError(`PADDOCK_BILLING_PROVIDER=stripe needs ${missing.join(', ')}`);
    stripe = {
      secretKey: env.PADDOCK_STRIPE_SECRET_KEY!,
      webhookSecret: env.PADDOCK_STRIPE_WEBHOOK_SECRET!,
      prices: { pro: env.PADDOCK_STRIPE_PRICE_PRO!, team: env.PADDOCK_STRIPE_PRICE_TEAM!, enterprise: env.PADDOCK_STRIPE_PRICE_ENTERPRISE || null },
      apiUrl: stripeApiUrl(env.PADDOCK_STRIPE_API_URL),
    };
  }
  return {
    provider,
    plans,
    operators,
    graceDays: integer('PADDOCK_BILLING_GRACE_DAYS', env.PADDOCK_BILLING_GRACE_DAYS, 7, 0, 365),
    quotaCheckIntervalMs: integer('PADDOCK_QUOTA_CHECK_INTERVAL_MS', env.PADDOCK_QUOTA_CHECK_INTERVAL_MS, 60_000, 10, 3_600_000),
    stripe,
  };
}

/**
 * Two python sandboxes (the default template of most examples) and one node sandbox: back-to-back
 * creates start at once, for about 1.5 MB of host memory on runc and 50 MB on gVisor.
 */
export const DEFAULT_WARM_POOL = 'python-311:2,node-22:1';
const MAX_WARM_PER_TEMPLATE = 50;

/** `template:count,…`; `0` or an empty value turns the pool off. */
export function warmPool(raw: string | undefined): Record<string, number> {
  const value = (raw ?? DEFAULT_WARM_POOL).trim();
  if (value === '' || value === '0') return {};
  const pool: Record<string, number> = {};
  for (const entry of value.split(',').map((part) => part.trim())) {
    const match = /^([a-z0-9][a-z0-9.-]*):(\d+)$/.exec(entry);
    if (!match) throw new ConfigError(`PADDOCK_WARM_POOL must be template:count pairs separated by commas (e.g. ${DEFAULT_WARM_POOL}), or 0 to turn it off; got "${entry}"`);
    const [, template, count] = match;
    if (!(TEMPLATE_NAMES as readonly string[]).includes(template)) {
      throw new ConfigError(`PADDOCK_WARM_POOL names an unknown template "${template}"; known: ${TEMPLATE_NAMES.join(', ')}`);
    }
    if (Number(count) > MAX_WARM_PER_TEMPLATE) throw new ConfigError(`PADDOCK_WARM_POOL allows at most ${MAX_WARM_PER_TEMPLATE} sandboxes per template, got ${count} for ${template}`);
    if (template in pool) throw new ConfigError(`PADDOCK_WARM_POOL names ${template} twice`);
    pool[template] = Number(count);
  }
  return pool;
}

/** `host:port` or `[ipv6]:port` (port 0 picks a free one); empty or `off` serves no metrics. */
export function metricsListen(raw: string | undefined): ListenAddress | null {
  const value = (raw ?? '').trim();
  if (value === '' || value.toLowerCase() === 'off') return null;
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([A-Za-z0-9.-]+)):(\d{1,5})$/.exec(value);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) {
    throw new ConfigError(`PADDOCK_METRICS_LISTEN must be host:port (e.g. 127.0.0.1:9464, [::1]:9464) or off, got "${raw}"`);
  }
  const host = match[1] ?? match[2];
  if (match[1] !== undefined && net.isIPv6(host) === false) throw new ConfigError(`PADDOCK_METRICS_LISTEN: "${host}" is not an IPv6 address`);
  return { host, port };
}

function decimal(name: string, raw: string | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+(\.\d+)?$/.test(raw)) throw new ConfigError(`${name} must be a non-negative decimal number, got "${raw}"`);
  const value = Number(raw);
  if (value < min || value > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function secretsKey(raw: string | undefined): Buffer | null {
  if (raw === undefined || raw === '') return null;
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new ConfigError('PADDOCK_SECRETS_KEY must be 32 bytes, as 64 hex characters or base64 (openssl rand -base64 32)');
  return key;
}

function stripeApiUrl(raw: string | undefined): string | null {
  return httpOrigin('PADDOCK_STRIPE_API_URL', raw, 'http://localhost:12111', ' (the SDK adds /v1/…)');
}

/** An http(s):// origin without a path; null when unset. */
function httpOrigin(name: string, raw: string | undefined, example: string, why = ''): string | null {
  if (raw === undefined || raw === '') return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL such as ${example}, got "${raw}"`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || (url.pathname !== '/' && url.pathname !== '')) {
    throw new ConfigError(`${name} must be an http:// or https:// origin without a path${why}, got "${raw}"`);
  }
  return url.origin;
}

function publicUrl(raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`PADDOCK_PUBLIC_URL must be a URL such as https://paddock.example.com, got "${raw}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError('PADDOCK_PUBLIC_URL must start with http:// or https://');
  return raw.replace(/\/+$/, '');
}

function flag(name: string, raw: string | undefined, fallback: boolean): boolean {
  if (raw === undefined || raw === '') return fallback;
  if (['1', 'true', 'yes'].includes(raw.toLowerCase())) return true;
  if (['0', 'false', 'no'].includes(raw.toLowerCase())) return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function smtpUrl(raw: string | undefined): string | null {
  if (raw === undefined || raw === '') return null;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('SMTP_URL must be a URL such as smtp://user:password@mail.example.com:587 or smtps://…:465');
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') throw new ConfigError('SMTP_URL must start with smtp:// or smtps://');
  return raw;
}

function modelPrices(file: string | undefined): ModelPrice[] {
  if (file === undefined || file === '') return [];
  try {
    return readModelPriceFile(file);
  } catch (error) {
    throw new ConfigError(`PADDOCK_MODEL_PRICES_FILE: ${(error as Error).message}`);
  }
}

/** Reads and checks an operator price file: a JSON array of ModelPrice. Throws an Error saying what is wrong. */
export function readModelPriceFile(file: string): ModelPrice[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`cannot read ${file} as JSON: ${(error as Error).message}`);
  }
  if (!Array.isArray(parsed)) throw new Error(`${file} must hold a JSON array of {match, input_usd_per_million_tokens, output_usd_per_million_tokens}`);
  return parsed.map((entry, index) => {
    const at = `${file}[${index}]`;
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw new Error(`${at} must be an object`);
    const { match, input_usd_per_million_tokens: input, output_usd_per_million_tokens: output, ...rest } = entry as Record<string, unknown>;
    const unknown = Object.keys(rest);
    if (unknown.length) throw new Error(`${at}.${unknown[0]} is not a known field`);
    if (typeof match !== 'string' || match.trim() === '' || match.length > 200) throw new Error(`${at}.match must be a model name pattern such as "gpt-4o*"`);
    for (const [name, value] of [
      ['input_usd_per_million_tokens', input],
      ['output_usd_per_million_tokens', output],
    ] as const) {
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new Error(`${at}.${name} must be a non-negative number (USD per million tokens)`);
    }
    return { match: match.trim(), input_usd_per_million_tokens: input as number, output_usd_per_million_tokens: output as number };
  });
}

export function databaseFile(config: Config): string {
  return path.join(config.dataDir, 'paddock.db');
}

/** What openStorage needs to open the configured database. */
export function storageOptions(config: Config): { databaseUrl: string | null; sqliteFile: string; poolSize: number } {
  return { databaseUrl: config.databaseUrl, sqliteFile: databaseFile(config), poolSize: config.databasePoolSize };
}

/** Default: the machine's name and the data directory, which together locate a runtime's sandboxes. */
function hostId(value: string | undefined, dataDir: string): string {
  const id = value?.trim() || `${os.hostname()}:${dataDir}`;
  if (id.length > 200) throw new ConfigError('PADDOCK_HOST_ID must be at most 200 characters');
  return id;
}
