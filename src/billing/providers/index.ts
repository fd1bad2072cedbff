// Picks the billing provider config.billing.provider names. Each provider is built by its own folder;
// this map is the only place that knows them all.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import type { Db } from '../../core/db/handles.js';
import { NotFound } from '../../core/errors.js';
import type { Logger } from '../../core/logging.js';
import type { PlanRequests } from '../plan-requests/service.js';
import type { SubscriptionService } from '../subscriptions/service.js';
import type { SubscriptionTransitions } from '../subscriptions/transitions.js';
import { createManualProvider, requestPlanCheckout } from './manual/provider.js';
import { registerStripeWebhook } from './stripe/plugin.js';
import { createStripeProvider } from './stripe/provider.js';
import type { BillingProvider, BillingProviderName } from './provider.js';

export interface ProviderDeps {
  config: Pick<Config, 'billing' | 'publicUrl'>;
  requests: PlanRequests;
  transitions: SubscriptionTransitions;
}

const FACTORIES: Record<BillingProviderName, (deps: ProviderDeps) => BillingProvider> = {
  manual: (deps) => createManualProvider({ requests: deps.requests, publicUrl: deps.config.publicUrl }),
  stripe: (deps) =>
    createStripeProvider({
      config: deps.config.billing.stripe!,
      publicUrl: deps.config.publicUrl,
      transitions: deps.transitions,
      requestPlan: requestPlanCheckout({ requests: deps.requests, publicUrl: deps.config.publicUrl }),
    }),
};

export function createBillingProvider(deps: ProviderDeps): BillingProvider {
  return FACTORIES[deps.config.billing.provider](deps);
}

export interface ProviderRouteDeps extends ProviderDeps {
  db: Db;
  subscriptions: Pick<SubscriptionService, 'current'>;
  log: Logger;
}

/** The routes a provider serves itself: Stripe's webhook when the provider is stripe, none for manual. */
export async function registerProviderRoutes(app: FastifyInstance, deps: ProviderRouteDeps): Promise<void> {
  if (deps.config.billing.provider !== 'stripe') return;
  await registerStripeWebhook(app, {
    config: deps.config.billing.stripe!,
    db: deps.db,
    transitions: deps.transitions,
    subscriptionOf: async (accountId) => {
      try {
        return await deps.subscriptions.current(accountId);
      } catch (error) {
        if (error instanceof NotFound) return null;
        throw error;
      }
    },
    log: deps.log,
  });
}
