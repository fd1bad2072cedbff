// Registers the A2A protocol binding: the agents' A2A endpoints, the push-notification outbox handler,
// and answers the TaskChangePublisher that queues push notifications (tasks call it in every change's
// transaction).
import type { FastifyInstance } from 'fastify';
import type { Config } from '../../config.js';
import type { Principal } from '../../core/access.js';
import type { Storage } from '../../core/db/database.js';
import type { Outbox } from '../../core/outbox/outbox.js';
import { TextSealer } from '../../core/sealed-text.js';
import { derivedKey } from '../../secrets/key.js';
import type { AgentDirectory, TaskChangePublisher, TaskService } from '../contract.js';
import { agentEndpointUrl, publicBase } from '../public-base.js';
import type { TaskSignals } from '../task-signals.js';
import { PushConfigStore } from './push-configs.js';
import { PushCredentialSealer } from './push-credentials.js';
import { PUSH_NOTIFICATION_KIND, pushNotificationDelivery, pushNotificationPublisher, queuePushes } from './push-delivery.js';
import { a2aProtocolRoutes } from './routes.js';

export interface A2aProtocolOptions {
  config: Config;
  storage: Storage;
  outbox: Outbox;
  tasks: TaskService;
  agents: AgentDirectory;
  signals: TaskSignals;
  authenticate(credential: string): Promise<Principal | null>;
  /** The server's secrets key: push-notification credentials are stored sealed under keys derived from it. */
  secretsKey: Buffer;
}

export async function registerA2aProtocol(app: FastifyInstance, options: A2aProtocolOptions): Promise<TaskChangePublisher> {
  const policy = { allowPrivate: options.config.allowPrivateWebhooks, allowHttp: options.config.allowHttpWebhooks };
  const credentials = new PushCredentialSealer(
    new TextSealer(derivedKey(options.secretsKey, 'paddock a2a push tokens')),
    new TextSealer(derivedKey(options.secretsKey, 'paddock a2a push authentications')),
  );
  const pushConfigs = new PushConfigStore(options.storage.db, policy, credentials);
  await pushConfigs.sealStoredSecrets();
  options.outbox.handle(PUSH_NOTIFICATION_KIND, pushNotificationDelivery(policy, credentials));
  await app.register(
    a2aProtocolRoutes({
      tasks: options.tasks,
      agents: options.agents,
      signals: options.signals,
      pushConfigs,
      pushNow: async (accountId, task, config) => {
        await queuePushes(options.outbox, credentials, options.storage.db, accountId, task, [config]);
        options.outbox.wake();
      },
      authenticate: options.authenticate,
      endpointOf: (request, agentId) => agentEndpointUrl(publicBase(options.config.publicUrl, request), agentId),
    }),
  );
  return pushNotificationPublisher(pushConfigs, options.outbox, credentials);
}
