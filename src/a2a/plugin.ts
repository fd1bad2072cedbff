// Wires agent delegation into the app: the registry (agents/) and its open discovery; the other parts
// (tasks, stream, webhooks, protocol) add their lines here.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Principal } from '../core/access.js';
import type { Storage } from '../core/db/database.js';
import { discoveryRoutes } from './agents/discovery-routes.js';
import { agentRoutes } from './agents/routes.js';
import { AgentService, type AgentPipelines } from './agents/service.js';
import type { Outbox } from '../core/outbox/outbox.js';
import type { TaskChangePublisher } from './contract.js';
import { registerTaskWebhooks } from './webhooks/plugin.js';
import type { TaskWebhookService } from './webhooks/service.js';

export interface A2aFeature {
  /** The registry; implements AgentDirectory for tasks and the protocol binding. */
  agents: AgentService;
  /** Task webhooks (account-level subscriptions to task status changes). */
  taskWebhooks: TaskWebhookService;
  /** Every task status change is published to these, in its transaction. */
  taskChangePublishers: TaskChangePublisher[];
}

export interface A2aOptions {
  config: Config;
  storage: Storage;
  /** The pipelines feature's PipelineService. */
  pipelines: AgentPipelines;
  /** Durable deliveries (task webhooks). */
  outbox: Outbox;
  /** The accounts feature's: the principal behind a bearer credential (discovery's optional key), or null. */
  authenticate(credential: string): Promise<Principal | null>;
  /** The account's display name ('' when none): agent cards' `provider.organization`. */
  organizationOf(accountId: string): Promise<string>;
}

export async function registerA2a(app: FastifyInstance, options: A2aOptions): Promise<A2aFeature> {
  const agents = new AgentService(options.storage.db, options.pipelines);
  await app.register(agentRoutes(agents, options.config.publicUrl));
  await app.register(discoveryRoutes(agents, { publicUrl: options.config.publicUrl, authenticate: options.authenticate, organizationOf: options.organizationOf }));
  const taskWebhooks = await registerTaskWebhooks(app, { config: options.config, db: options.storage.db, outbox: options.outbox });
  const taskChangePublishers: TaskChangePublisher[] = [taskWebhooks.publisher];
  return { agents, taskWebhooks: taskWebhooks.service, taskChangePublishers };
}
