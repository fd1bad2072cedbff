// The A2A AgentCard of a registered agent, served at `<endpoint>/.well-known/agent-card.json`: v1.0
// (proto JSON) for clients that send `A2A-Version: 1.0`, and the v0.3 shape (with the v1.0 interfaces
// embedded, as the A2A SDK's own server does) for those that send no version or 0.3.
import { AgentCard } from '@a2a-js/sdk';
import type { AgentRecord } from '../contract.js';

/** JSON-RPC at v1.0 and v0.3, HTTP+JSON at v1.0 (the v0.3 HTTP+JSON paths under /v1 are not served). */
const INTERFACES = [
  { protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
  { protocolBinding: 'HTTP+JSON', protocolVersion: '1.0' },
  { protocolBinding: 'JSONRPC', protocolVersion: '0.3' },
] as const;
const SECURITY_SCHEME = 'paddock_api_key';
const SECURITY_DESCRIPTION = "A Paddock API key (full scope) of the agent's account, sent as Authorization: Bearer <key>";

/** The v1.0 card; `endpoint` is the agent's A2A endpoint, `<base>/a2a/<agentId>`. */
export function agentCard(agent: AgentRecord, endpoint: string): AgentCard {
  return {
    name: agent.name,
    description: agent.description,
    // JSON-RPC is POSTed to the endpoint itself; HTTP+JSON paths hang below it (v0.3 ones under /v1).
    supportedInterfaces: INTERFACES.map((entry) => ({ url: endpoint, tenant: '', ...entry })),
    provider: { organization: 'Paddock', url: new URL(endpoint).origin },
    version: String(agent.version),
    capabilities: { streaming: true, pushNotifications: true, extensions: [], extendedAgentCard: false },
    securitySchemes: { [SECURITY_SCHEME]: { scheme: { $case: 'httpAuthSecurityScheme', value: { description: SECURITY_DESCRIPTION, scheme: 'Bearer', bearerFormat: 'Paddock API key' } } } },
    securityRequirements: [{ schemes: { [SECURITY_SCHEME]: { list: [] } } }],
    defaultInputModes: ['text/plain', 'application/json'],
    defaultOutputModes: ['application/json', 'text/plain'],
    skills: agent.skills.map((skill) => ({
      id: skill.id,
      name: skill.name,
      description: skill.description,
      tags: skill.tags,
      examples: [],
      inputModes: ['application/json', 'text/plain'],
      outputModes: ['application/json', 'text/plain'],
      securityRequirements: [],
    })),
    signatures: [],
  };
}

export function agentCardJson(card: AgentCard): unknown {
  return AgentCard.toJSON(card);
}

/** The v0.3 card: `url` + `preferredTransport` + `additionalInterfaces`, `security`, and `supportedInterfaces` for v1.0 readers. */
export function legacyAgentCardJson(card: AgentCard): Record<string, unknown> {
  const legacy = card.supportedInterfaces.filter((entry) => entry.protocolVersion === '0.3');
  return {
    protocolVersion: '0.3.0',
    name: card.name,
    description: card.description,
    version: card.version,
    url: legacy[0].url,
    preferredTransport: legacy[0].protocolBinding,
    additionalInterfaces: legacy.slice(1).map((entry) => ({ url: entry.url, transport: entry.protocolBinding })),
    provider: card.provider,
    capabilities: { streaming: true, pushNotifications: true, stateTransitionHistory: false },
    securitySchemes: { [SECURITY_SCHEME]: { type: 'http', scheme: 'bearer', bearerFormat: 'Paddock API key', description: SECURITY_DESCRIPTION } },
    security: [{ [SECURITY_SCHEME]: [] }],
    defaultInputModes: card.defaultInputModes,
    defaultOutputModes: card.defaultOutputModes,
    skills: card.skills.map((skill) => ({ id: skill.id, name: skill.name, description: skill.description, tags: skill.tags, inputModes: skill.inputModes, outputModes: skill.outputModes })),
    supportsAuthenticatedExtendedCard: false,
    supportedInterfaces: (AgentCard.toJSON(card) as { supportedInterfaces: unknown }).supportedInterfaces,
  };
}
