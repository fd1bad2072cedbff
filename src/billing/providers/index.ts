// Picks the billing provider config.billing.provider names. Each provider is built by its own folder;
// this map is the only place that knows them all.
import type { Config } from '../../config.js';
import type { PlanRequests } from '../plan-requests/service.js';
import type { SubscriptionTransitions } from '../subscriptions/transitions.js';
import { createManualProvider } from './manual/provider.js';
import type { BillingProvider, BillingProviderName } from './provider.js';

export interface ProviderDeps {
  config: Pick<Config, 'billing' | 'publicUrl'>;
  requests: PlanRequests;
  transitions: SubscriptionTransitions;
}

const FACTORIES: Record<BillingProviderName, (deps: ProviderDeps) => BillingProvider> = {
  manual: (deps) => createManualProvider({ requests: deps.requests, publicUrl: deps.config.publicUrl }),
  // billing-stripe fills this entry: createStripeProvider({ config: deps.config.billing.stripe!, publicUrl: deps.config.publicUrl,
  // transitions: deps.transitions, requestPlan: requestPlanCheckout({ requests: deps.requests, publicUrl: deps.config.publicUrl }) }).
  stripe: () => {
    throw new Error('PADDOCK_BILLING_PROVIDER=stripe: this build has no Stripe provider');
  },
};

export function createBillingProvider(deps: ProviderDeps): BillingProvider {
  return FACTORIES[deps.config.billing.provider](deps);
}
