// The plans, in one place: price, concurrency, compute hours and request rate per plan, from the
// spec's defaults and the operator's overrides (config.billing.plans, config.rateLimitPerMinute).
import type { Config } from '../config.js';
import { PLANS, type Plan, type PlanCatalog, type PlanDefinition } from './contract.js';

const DESCRIPTIONS: Record<Plan, string> = {
  free: 'No charge. For trying Paddock out.',
  pro: 'For one engineer building an agent product.',
  team: 'For a team running agents in production.',
  enterprise: 'Custom price and compute, agreed with the operator of this server: unlimited sandboxes and compute hours unless the operator sets limits.',
};

export function createPlanCatalog(config: Pick<Config, 'billing' | 'rateLimitPerMinute'>): PlanCatalog {
  const definitions = new Map<Plan, PlanDefinition>(
    PLANS.map((plan) => {
      const settings = config.billing.plans[plan];
      return [plan, { plan, ...settings, requestsPerMinute: config.rateLimitPerMinute[plan], description: DESCRIPTIONS[plan] }];
    }),
  );
  return {
    get: (plan) => definitions.get(plan)!,
    all: () => [...definitions.values()],
  };
}
