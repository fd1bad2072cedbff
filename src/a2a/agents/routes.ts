// HTTP surface of the agent registry: register, list, read, change and delete agents.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import { a2aErrors } from '../error-body.js';
import { publicBase } from '../public-base.js';
import { MAX_AGENTS_PER_ACCOUNT } from './limits.js';
import { AgentParams, AgentRegistration, CreateAgentBody, UpdateAgentBody } from './schemas.js';
import type { AgentService } from './service.js';
import { registrationView } from './views.js';

// Only full-scope keys reach area a2a (see SCOPE_TABLE): an agent runs the account's pipelines.
const access = { access: { kind: 'key', area: 'a2a' } } as const;
const errors = a2aErrors(400, 401, 403, 404, 409, 429);

const RULES =
  'An agent is backed by a pipeline of this account: each task is one run of it, with `template` (when set) as the default template of its command stages. Skill ids are unique within the agent, names unique within the account (409 `already_exists`). Every error answers `{"error": {"code", "message", "details"}}`, `details.field` naming the field at fault. Only full-scope keys (a `sandbox` or `read` key gets 403 `scope_denied`).';

export function agentRoutes(agents: AgentService, publicUrl: string | null): FastifyPluginAsyncTypebox {
  return async (app) => {
    app.addSchema(AgentRegistration);
    const Agent = Type.Ref(AgentRegistration);

    app.post('/v1/a2a/agents', {
      config: { ...access, idempotent: true },
      schema: {
        tags: ['a2a'],
        summary: 'Register an agent',
        description: `Answers 201 with the registration: \`enabled\` true, \`version\` 1, \`url\` its A2A endpoint. ${RULES} Up to ${MAX_AGENTS_PER_ACCOUNT} agents per account (403 \`quota_exceeded\`).`,
        body: CreateAgentBody,
        response: { 201: Agent, ...errors },
      },
      handler: async (request, reply) => reply.code(201).send(registrationView(await agents.create(request.principal!.accountId, request.body), publicBase(publicUrl, request))),
    });

    app.get('/v1/a2a/agents', {
      config: access,
      schema: {
        tags: ['a2a'],
        summary: "List the account's agents",
        description: 'Every registration of the account, oldest first, public or private, enabled or not.',
        response: { 200: Type.Object({ agents: Type.Array(Agent) }), ...errors },
      },
      handler: async (request) => {
        const base = publicBase(publicUrl, request);
        return { agents: (await agents.list(request.principal!.accountId)).map((agent) => registrationView(agent, base)) };
      },
    });

    app.get('/v1/a2a/agents/:id', {
      config: access,
      schema: {
        tags: ['a2a'],
        summary: 'Get an agent registration',
        description: "404 `agent_not_found` for an unknown id or another account's agent.",
        params: AgentParams,
        response: { 200: Agent, ...errors },
      },
      handler: async (request) => registrationView(await agents.get(request.principal!.accountId, request.params.id), publicBase(publicUrl, request)),
    });

    app.put('/v1/a2a/agents/:id', {
      config: { ...access, idempotent: true },
      schema: {
        tags: ['a2a'],
        summary: 'Change an agent registration',
        description: `Send any of \`description\`, \`enabled\`, \`max_cost_per_task\`, and also \`name\`, \`pipeline_id\`, \`template\`, \`skills\` (replaces them all), \`public\`, \`rate_limit_rpm\`; the rest stays. Answers the registration with \`version\` one higher. Tasks already created keep the limits and pipeline they were created with; a disabled agent refuses new tasks (403 \`agent_disabled\`) and leaves discovery. ${RULES}`,
        params: AgentParams,
        body: UpdateAgentBody,
        response: { 200: Agent, ...errors },
      },
      handler: async (request) => registrationView(await agents.update(request.principal!.accountId, request.params.id, request.body), publicBase(publicUrl, request)),
    });

    app.delete('/v1/a2a/agents/:id', {
      config: access,
      schema: {
        tags: ['a2a'],
        summary: 'Delete an agent',
        description:
          'Answers 204. The registration is gone at once: its card leaves discovery and new tasks are 404 `agent_not_found`. Tasks already created are not canceled: they run to their end (cancel them first to stop them) and stay readable under /v1/a2a/tasks.',
        params: AgentParams,
        response: { 204: Type.Null(), ...errors },
      },
      handler: async (request, reply) => {
        await agents.delete(request.principal!.accountId, request.params.id);
        return reply.code(204).send(null);
      },
    });
  };
}
