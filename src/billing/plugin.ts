// Wires billing: plans, the one writer of subscriptions, plan requests, the subscription service, the
// provider config.billing.provider names, operators, their routes and the sweeper. createBilling builds
// the parts without a server (the `paddock accounts` CLI uses them); registerBilling serves them.
import type { FastifyInstance } from 'fastify';
import type { AlertRaiser } from '../alerts/contract.js';
import type { Config } from '../config.js';
import type { Storage } from '../core/db/database.js';
import type { Logger } from '../core/logging.js';
import type { BillingProvider, PlanCatalog, UsageReader } from './contract.js';
import { OperatorService, type OperatorDirectory } from './operators/service.js';
import { operatorRoutes } from './operators/routes.js';
import { createPlanCatalog } from './plans.js';
import { PlanRequests } from './plan-requests/service.js';
import { createBillingProvider, registerProviderRoutes } from './providers/index.js';
import { billingRoutes } from './routes.js';
import { AccountBilling } from './subscriptions/account-billing.js';
import { storedSubscriptions, SubscriptionService } from './subscriptions/service.js';
import { SubscriptionSweeper } from './subscriptions/sweeper.js';
import { SubscriptionTransitions } from './subscriptions/transitions.js';

export interface BillingCoreDeps {
  config: Pick<Config, 'billing' | 'publicUrl' | 'rateLimitPerMinute'>;
  storage: Pick<Storage, 'db' | 'sqlDialect'>;
  accounts: OperatorDirectory;
  alerts: AlertRaiser;
  /** What time it is; tests drive it. */
  clock?: () => number;
}

export interface BillingDeps extends BillingCoreDeps {
  usage: UsageReader;
  log: Logger;
}

/** What writes plans: the one writer, plan requests and the operators deciding them (all the CLI needs). */
export interface BillingCore {
  catalog: PlanCatalog;
  transitions: SubscriptionTransitions;
  requests: PlanRequests;
  operators: OperatorService;
}

export interface BillingFeature extends BillingCore {
  subscriptions: SubscriptionService;
  provider: BillingProvider;
  actions: AccountBilling;
  sweeper: SubscriptionSweeper;
}

export function createBillingCore(deps: BillingCoreDeps): BillingCore {
  const { config, storage, accounts } = deps;
  const clock = deps.clock ?? Date.now;
  const catalog = createPlanCatalog(config);
  const transitions = new SubscriptionTransitions(storage.db, storage.sqlDialect, accounts, deps.alerts, { graceDays: config.billing.graceDays, defaultProvider: config.billing.provider }, clock);
  const requests = new PlanRequests(storage.db, transitions, clock);
  const operators = new OperatorService(accounts, requests, (ids) => storedSubscriptions(storage.db, ids), transitions, config.billing.operators, clock);
  return { catalog, transitions, requests, operators };
}

export function createBilling(deps: BillingDeps): BillingFeature {
  const { config, storage, accounts } = deps;
  const clock = deps.clock ?? Date.now;
  const core = createBillingCore(deps);
  const { catalog, transitions, requests } = core;
  const subscriptions = new SubscriptionService(storage.db, transitions, accounts, catalog, requests, deps.usage, config.billing.provider, clock);
  const provider = createBillingProvider({ config, requests, transitions });
  const actions = new AccountBilling(subscriptions, transitions, requests, accounts, provider, clock);
  const sweeper = new SubscriptionSweeper(storage.db, transitions, deps.log, clock);
  return { ...core, subscriptions, provider, actions, sweeper };
}

export async function registerBilling(app: FastifyInstance, deps: BillingDeps): Promise<BillingFeature> {
  const billing = createBilling(deps);
  await app.register(
    billingRoutes({
      catalog: billing.catalog,
      provider: deps.config.billing.provider,
      publicUrl: deps.config.publicUrl,
      subscriptions: billing.subscriptions,
      actions: billing.actions,
      operators: billing.operators,
    }),
  );
  await app.register(operatorRoutes(billing.operators));
  await registerProviderRoutes(app, { config: deps.config, requests: billing.requests, transitions: billing.transitions, db: deps.storage.db, subscriptions: billing.subscriptions, log: deps.log });
  app.addHook('onReady', async () => billing.sweeper.start());
  app.addHook('onClose', async () => billing.sweeper.stop());
  return billing;
}
