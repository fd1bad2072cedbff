// Wires account webhooks into the app: the service and its routes, the `webhook.event` outbox handler,
// and the EventPublisher the features publish their events through.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Storage } from '../core/db/database.js';
import type { Outbox } from '../core/outbox/outbox.js';
import { TextSealer } from '../core/sealed-text.js';
import { derivedKey } from '../secrets/key.js';
import { WEBHOOK_EVENT_KIND, webhookEventDelivery } from './delivery.js';
import { WebhookPublisher } from './publisher.js';
import { webhookRoutes } from './routes.js';
import { WebhookService } from './service.js';

export interface WebhooksFeature {
  service: WebhookService;
  /** Pass to every feature that publishes events (pipelines' Transitions, the sandbox lifecycle). */
  publisher: WebhookPublisher;
}

export async function registerWebhooks(app: FastifyInstance, options: { config: Config; storage: Storage; outbox: Outbox; secretsKey: Buffer }): Promise<WebhooksFeature> {
  const policy = { allowPrivate: options.config.allowPrivateWebhooks, allowHttp: options.config.allowHttpWebhooks };
  const service = new WebhookService(options.storage.db, options.outbox, policy, new TextSealer(derivedKey(options.secretsKey, 'paddock webhook endpoint secrets')));
  await service.sealStoredSecrets();
  options.outbox.handle(
    WEBHOOK_EVENT_KIND,
    webhookEventDelivery(policy, (accountId, id) => service.endpointForDelivery(accountId, id)),
  );
  await app.register(webhookRoutes(service));
  return { service, publisher: new WebhookPublisher(options.outbox) };
}
