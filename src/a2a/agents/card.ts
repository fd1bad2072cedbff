// An agent's card as open discovery answers it (the spec's fields, nothing of the registration's
// internals: no pipeline, no limits, no input schemas).
import { Type, type Static } from '@sinclair/typebox';
import type { AgentRecord } from '../contract.js';
import { agentEndpointUrl } from '../public-base.js';

export const DISCOVERY_PROTOCOL_VERSION = '1.0';
const MODES = ['text', 'json', 'file'];

export const AgentCard = Type.Object(
  {
    name: Type.String(),
    description: Type.String(),
    url: Type.String({ description: "The agent's A2A endpoint (JSON-RPC; its A2A card at `<url>/.well-known/agent-card.json`)." }),
    version: Type.String({ description: 'The registration\'s version: "1" on creation, one more for every change.' }),
    capabilities: Type.Object({ streaming: Type.Boolean(), push: Type.Boolean() }),
    input_modes: Type.Array(Type.String()),
    output_modes: Type.Array(Type.String()),
    skills: Type.Array(Type.Object({ id: Type.String(), name: Type.String(), description: Type.String(), tags: Type.Array(Type.String()) })),
    authentication: Type.Object({ type: Type.String(), schemes: Type.Array(Type.String()) }, { description: 'Tasks need `Authorization: Bearer <API_KEY>`.' }),
    provider: Type.Object({
      name: Type.String({ description: '`Paddock`.' }),
      organization: Type.String({ description: "The owning account's display name (empty when it has none)." }),
      url: Type.String({ description: 'The public base URL of this server.' }),
    }),
  },
  { $id: 'A2aAgentCard' },
);
export type AgentCardView = Static<typeof AgentCard>;

export function agentCard(agent: AgentRecord, base: string, organization: string): AgentCardView {
  return {
    name: agent.name,
    description: agent.description,
    url: agentEndpointUrl(base, agent.id),
    version: String(agent.version),
    capabilities: { streaming: true, push: true },
    input_modes: [...MODES],
    output_modes: [...MODES],
    skills: agent.skills.map((skill) => ({ id: skill.id, name: skill.name, description: skill.description, tags: skill.tags })),
    authentication: { type: 'bearer', schemes: ['api_key'] },
    provider: { name: 'Paddock', organization, url: base },
  };
}
