// Where clients reach this server: PADDOCK_PUBLIC_URL when set, else the scheme and Host the request
// came with (what snapshot download links do too). Agent cards and registrations advertise URLs on it.
import type { FastifyRequest } from 'fastify';

export function publicBase(publicUrl: string | null, request: FastifyRequest): string {
  return publicUrl ?? `${request.protocol}://${request.host}`;
}

/** An agent's A2A endpoint: JSON-RPC is served there and its A2A card at `<url>/.well-known/agent-card.json`. */
export function agentEndpointUrl(base: string, agentId: string): string {
  return `${base.replace(/\/+$/, '')}/a2a/${encodeURIComponent(agentId)}`;
}
