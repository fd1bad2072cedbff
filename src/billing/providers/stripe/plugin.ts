// The Stripe webhook, registered only when Stripe is the billing provider: the route, its event store and
// the handler that turns events into subscription transitions.
import type { FastifyInstance } from 'fastify';
import type Stripe from 'stripe';
import type { StripeConfig } from '../../../config.js';
import type { Db } from '../../../core/db/handles.js';
import type { Logger } from '../../../core/logging.js';
import type { Subscription, SubscriptionTransitions } from '../../contract.js';
import { createStripeClient } from './client.js';
import { StripeEventStore } from './event-store.js';
import { stripeEventHandler } from './webhook-events.js';
import { stripeWebhookRoutes } from './webhook-routes.js';

export interface StripeWebhookDeps {
  config: StripeConfig;
  db: Db;
  /** The SDK client; built from `config` (the provider's settings, so both talk to the same API) when not given. */
  stripe?: Stripe;
  transitions: SubscriptionTransitions;
  subscriptionOf(accountId: string): Promise<Subscription | null>;
  log: Logger;
}

export async function registerStripeWebhook(app: FastifyInstance, deps: StripeWebhookDeps): Promise<void> {
  const stripe = deps.stripe ?? createStripeClient(deps.config);
  const handle = stripeEventHandler({ stripe, prices: deps.config.prices, transitions: deps.transitions, subscriptionOf: deps.subscriptionOf, log: deps.log });
  await app.register(stripeWebhookRoutes({ webhookSecret: deps.config.webhookSecret, events: new StripeEventStore(deps.db), handle, log: deps.log }));
}
