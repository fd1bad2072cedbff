// Wires task webhooks: the service and its routes, the outbox handler that delivers them, and the
// TaskChangePublisher the task follower publishes every task status change through.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import type { Db } from '../../core/db/handles.js';
import type { Outbox } from '../../core/outbox/outbox.js';
import { TextSealer } from '../../core/sealed-text.js';
import { derivedKey } from '../../secrets/key.js';
import type { TaskChangePublisher } from '../contract.js';
import { TASK_WEBHOOK_KIND, taskWebhookDelivery } from './delivery.js';
import { TaskWebhookPublisher } from './publisher.js';
import { taskWebhookRoutes } from './routes.js';
import { TaskWebhookService } from './service.js';

export async function registerTaskWebhooks(
  app: FastifyInstance,
  options: { config: Config; db: Db; outbox: Outbox; secretsKey: Buffer },
): Promise<{ service: TaskWebhookService; publisher: TaskChangePublisher }> {
  const policy = { allowPrivate: options.config.allowPrivateWebhooks, allowHttp: options.config.allowHttpWebhooks };
  const service = new TaskWebhookService(options.db, options.outbox, policy, new TextSealer(derivedKey(options.secretsKey, 'paddock task webhook secrets')));
  await service.sealStoredSecrets();
  options.outbox.handle(
    TASK_WEBHOOK_KIND,
    taskWebhookDelivery(policy, (accountId, id) => service.webhookForDelivery(accountId, id)),
  );
  await app.register(taskWebhookRoutes(service));
  return { service, publisher: new TaskWebhookPublisher(options.outbox) };
}
