// paddock.agents: A2A agents this account registers (each backed by one of its pipelines), their skills,
// and the public agent cards of this server.
import type { Http } from '../core/http.js';
import { segment } from '../core/paths.js';
import type { BodyOf, ResponseOf, Schemas } from '../core/types.js';

export type Agent = Schemas['A2aAgent'];
export type AgentSkill = Agent['skills'][number];
export type AgentCard = ResponseOf<'/.well-known/agent/{agentId}.json', 'get'>;
export type AgentDiscovery = ResponseOf<'/.well-known/agent.json', 'get'>;
export type CreateAgentParams = BodyOf<'/v1/a2a/agents', 'post'>;
export type UpdateAgentParams = BodyOf<'/v1/a2a/agents/{id}', 'put'>;

export class Agents {
  constructor(private readonly http: Http) {}

  /** Registers an agent (`pipeline_id`, `skills`, …); answers it with its A2A `url`. */
  create(params: CreateAgentParams): Promise<Agent> {
    return this.http.request('POST', '/v1/a2a/agents', { body: params });
  }

  /** Every agent of the account, oldest first. */
  async list(): Promise<Agent[]> {
    return (await this.http.request<{ agents: Agent[] }>('GET', '/v1/a2a/agents')).agents;
  }

  get(agentId: string): Promise<Agent> {
    return this.http.request('GET', `/v1/a2a/agents/${segment(agentId)}`);
  }

  /** Changes the fields sent (`skills` replaces them all); `version` goes up by one. */
  update(agentId: string, params: UpdateAgentParams): Promise<Agent> {
    return this.http.request('PUT', `/v1/a2a/agents/${segment(agentId)}`, { body: params });
  }

  /** Tasks already created run to their end. */
  delete(agentId: string): Promise<void> {
    return this.http.request('DELETE', `/v1/a2a/agents/${segment(agentId)}`);
  }

  /** The agent's skills (what a task's `skill_id` names). */
  async skills(agentId: string): Promise<AgentSkill[]> {
    return (await this.get(agentId)).skills;
  }

  /** Replaces the agent's skills. */
  setSkills(agentId: string, skills: AgentSkill[]): Promise<Agent> {
    return this.update(agentId, { skills } as UpdateAgentParams);
  }

  /** The agent's A2A card (a private or disabled agent's needs this account's key, which the client sends). */
  card(agentId: string): Promise<AgentCard> {
    return this.http.request('GET', `/.well-known/agent/${segment(agentId)}.json`);
  }

  /** The cards of every public, enabled agent on the server. */
  discover(): Promise<AgentDiscovery> {
    return this.http.request('GET', '/.well-known/agent.json');
  }
}
