// An agent registration as the API answers it.
import type { AgentRecord } from '../contract.js';
import { agentEndpointUrl } from '../public-base.js';
import type { AgentRegistrationView } from './schemas.js';
import { DEFAULT_RATE_LIMIT_RPM } from './limits.js';

export function registrationView(agent: AgentRecord, base: string): AgentRegistrationView {
  return {
    id: agent.id,
    account_id: agent.accountId,
    name: agent.name,
    description: agent.description,
    pipeline_id: agent.pipelineId,
    template: agent.template,
    skills: agent.skills,
    public: agent.public,
    enabled: agent.enabled,
    max_cost_per_task: agent.maxCostPerTask,
    rate_limit_rpm: agent.rateLimitRpm ?? DEFAULT_RATE_LIMIT_RPM,
    version: agent.version,
    url: agentEndpointUrl(base, agent.id),
    created_at: agent.createdAt,
    updated_at: agent.updatedAt,
  };
}
