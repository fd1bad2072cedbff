// Open agent discovery: every public, enabled agent's card, and one agent's card. A private or disabled
// agent's card is answered only to a full-scope key of its own account, and is a 404 to anyone else.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { scopeAllows, type Principal } from '../../core/access.js';
import { HttpError } from '../../core/errors.js';
import { a2aErrors } from '../error-body.js';
import { publicBase } from '../public-base.js';
import { AgentCard, agentCard, DISCOVERY_PROTOCOL_VERSION } from './card.js';
import { MAX_DISCOVERY_CARDS } from './limits.js';
import type { AgentService } from './service.js';

export interface DiscoveryOptions {
  publicUrl: string | null;
  /** The accounts feature's: the principal behind a bearer credential, or null. */
  authenticate(credential: string): Promise<Principal | null>;
  /** The account's display name for the card's `provider.organization` ('' when none). */
  organizationOf(accountId: string): Promise<string>;
}

const access = { access: { kind: 'open', limit: 'discovery' } } as const;
const errors = a2aErrors(400, 404, 429);
const RATE =
  'Open: no key needed, limited per client IP (PADDOCK_RATE_LIMIT_DISCOVERY, default 100 per minute; 429 `rate_limited` beyond, with `Retry-After` and the `X-RateLimit-*` headers on every answer).';

function bearer(request: FastifyRequest): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
  return match ? match[1] : null;
}

export function discoveryRoutes(agents: AgentService, options: DiscoveryOptions): FastifyPluginAsyncTypebox {
  // An invalid key counts as none: discovery never tells whether a private agent exists.
  async function ownerSees(request: FastifyRequest, accountId: string): Promise<boolean> {
    const credential = bearer(request);
    const principal = credential ? await options.authenticate(credential) : null;
    return principal !== null && principal.accountId === accountId && scopeAllows(principal.scope, 'a2a', 'GET');
  }

  return async (app) => {
    app.addSchema(AgentCard);
    const Card = Type.Ref(AgentCard);

    app.get('/.well-known/agent.json', {
      config: access,
      schema: {
        tags: ['a2a'],
        summary: 'Discover the public agents',
        description: `The cards of every public, enabled agent on this server (at most ${MAX_DISCOVERY_CARDS}, oldest registration first) and the \`protocol_version\` ("${DISCOVERY_PROTOCOL_VERSION}"). Private and disabled agents are never listed, with or without a key. ${RATE}`,
        response: { 200: Type.Object({ protocol_version: Type.String(), agents: Type.Array(Card) }), ...errors },
      },
      handler: async (request) => {
        const base = publicBase(options.publicUrl, request);
        const listed = await agents.listPublic();
        return { protocol_version: DISCOVERY_PROTOCOL_VERSION, agents: await Promise.all(listed.map(async (agent) => agentCard(agent, base, await options.organizationOf(agent.accountId)))) };
      },
    });

    app.get('/.well-known/agent/:agentId.json', {
      config: access,
      schema: {
        tags: ['a2a'],
        summary: "An agent's card",
        description: `The card of a public, enabled agent. A private or disabled agent's card is 404 \`agent_not_found\` unless the request carries \`Authorization: Bearer <API_KEY>\` with a full-scope key of the agent's own account (any other key, or an invalid one, is treated as none). ${RATE}`,
        params: Type.Object({ agentId: Type.String({ minLength: 1, maxLength: 64 }) }),
        response: { 200: Card, ...errors },
      },
      handler: async (request) => {
        const agent = await agents.find(request.params.agentId);
        if (!agent || (!(agent.public && agent.enabled) && !(await ownerSees(request, agent.accountId)))) throw new HttpError(404, 'agent not found', 'agent_not_found');
        return agentCard(agent, publicBase(options.publicUrl, request), await options.organizationOf(agent.accountId));
      },
    });
  };
}
