// Wires agent delegation into the app: the registry (agents/) and its open discovery; the other parts
// (tasks, stream, webhooks, protocol) add their lines here.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Storage } from '../core/db/database.js';
import { agentRoutes } from './agents/routes.js';
import { AgentService, type AgentPipelines } from './agents/service.js';

export interface A2aFeature {
  /** The registry; implements AgentDirectory for tasks and the protocol binding. */
  agents: AgentService;
}

export interface A2aOptions {
  config: Config;
  storage: Storage;
  /** The pipelines feature's PipelineService. */
  pipelines: AgentPipelines;
}

export async function registerA2a(app: FastifyInstance, options: A2aOptions): Promise<A2aFeature> {
  const agents = new AgentService(options.storage.db, options.pipelines);
  await app.register(agentRoutes(agents, options.config.publicUrl));
  return { agents };
}
