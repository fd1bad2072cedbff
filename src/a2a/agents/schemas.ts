// Request and response shapes of the agent registry: they validate input and document the API.
import { Type, type Static } from '@sinclair/typebox';
import { DEFAULT_RATE_LIMIT_RPM, MAX_COST_PER_TASK_USD, MAX_INPUT_SCHEMA_BYTES, MAX_INPUT_SCHEMA_DEPTH, MAX_RATE_LIMIT_RPM, MAX_SKILLS_PER_AGENT } from './limits.js';

export const SKILL_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$';

const Name = Type.String({ minLength: 1, maxLength: 100, pattern: '\\S', description: 'Unique within the account (409 `already_exists`); shown on the agent card.' });
const Description = Type.String({ maxLength: 2000, description: 'Shown on the agent card.' });
const PipelineId = Type.String({
  minLength: 1,
  maxLength: 64,
  description: 'A pipeline of this account (404 `not_found` naming `body.pipeline_id` otherwise; an archived pipeline is a 409 `conflict`): every task is one run of it.',
});
const Template = Type.Union([Type.String({ minLength: 1, maxLength: 200 }), Type.Null()], {
  description: "Overrides the pipeline's default template for its command stages (a stage naming its own template keeps it); null: the pipeline's own.",
});
const Skill = Type.Object(
  {
    id: Type.String({ pattern: SKILL_ID_PATTERN, description: 'Unique within the agent: letters, digits, `.`, `_`, `-`, up to 64 characters.' }),
    name: Type.String({ minLength: 1, maxLength: 100 }),
    description: Type.Optional(Type.String({ maxLength: 2000, default: '' })),
    tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { maxItems: 20, default: [] })),
    input_schema: Type.Object(
      {},
      {
        additionalProperties: true,
        description: `A JSON Schema: draft 2020-12, or draft-07 when its \`$schema\` says so (self-contained: remote \`$ref\`s are not fetched) that every task's \`input\` must match. Compiled at registration: one that does not compile is a 400 naming \`body.skills[i].input_schema\` with the compiler's complaint. At most ${MAX_INPUT_SCHEMA_BYTES / 1024} KiB as JSON, nesting objects and arrays at most ${MAX_INPUT_SCHEMA_DEPTH} levels deep.`,
      },
    ),
  },
  { additionalProperties: false },
);
const Skills = Type.Array(Skill, { minItems: 1, maxItems: MAX_SKILLS_PER_AGENT, description: `1 to ${MAX_SKILLS_PER_AGENT} skills with distinct ids.` });
const Public = Type.Boolean({ description: 'Public agents are listed by `GET /.well-known/agent.json` and their card is open; a private card is only answered to a full-scope key of its account.' });
const Enabled = Type.Boolean({ description: 'A disabled agent refuses tasks (403 `agent_disabled`) and is not discoverable; true on creation.' });
const MaxCost = Type.Union([Type.Number({ exclusiveMinimum: 0, maximum: MAX_COST_PER_TASK_USD }), Type.Null()], {
  description: `USD, over 0 and at most ${MAX_COST_PER_TASK_USD}: a task whose run costs (compute + LLM) reach it is stopped with \`budget_exceeded\`. Null (the default): no limit.`,
});
const RateLimit = Type.Integer({
  minimum: 1,
  maximum: MAX_RATE_LIMIT_RPM,
  description: `Tasks this agent accepts per minute (1-${MAX_RATE_LIMIT_RPM}, default ${DEFAULT_RATE_LIMIT_RPM}); more answer 429 \`rate_limited\`.`,
});

export const AgentParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const CreateAgentBody = Type.Object(
  {
    name: Name,
    description: Type.Optional(Description),
    pipeline_id: PipelineId,
    template: Type.Optional(Template),
    skills: Skills,
    public: Type.Optional(Type.Boolean({ ...Public, default: false })),
    max_cost_per_task: Type.Optional(MaxCost),
    rate_limit_rpm: Type.Optional(RateLimit),
  },
  { additionalProperties: false },
);
export type CreateAgentInput = Static<typeof CreateAgentBody>;

export const UpdateAgentBody = Type.Object(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Description),
    pipeline_id: Type.Optional(PipelineId),
    template: Type.Optional(Template),
    skills: Type.Optional(Type.Array(Skill, { ...Skills, description: 'Replaces every skill.' })),
    public: Type.Optional(Public),
    enabled: Type.Optional(Enabled),
    max_cost_per_task: Type.Optional(MaxCost),
    rate_limit_rpm: Type.Optional(RateLimit),
  },
  { additionalProperties: false },
);
export type UpdateAgentInput = Static<typeof UpdateAgentBody>;

const SkillView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  description: Type.String(),
  tags: Type.Array(Type.String()),
  input_schema: Type.Object({}, { additionalProperties: true }),
});

export const AgentRegistration = Type.Object(
  {
    id: Type.String(),
    account_id: Type.String(),
    name: Type.String(),
    description: Type.String(),
    pipeline_id: Type.String(),
    template: Type.Union([Type.String(), Type.Null()]),
    skills: Type.Array(SkillView),
    public: Type.Boolean(),
    enabled: Type.Boolean(),
    max_cost_per_task: Type.Union([Type.Number(), Type.Null()]),
    rate_limit_rpm: Type.Integer(),
    version: Type.Integer({ description: 'Starts at 1; every change (PUT) adds 1. The agent card shows it as a string.' }),
    url: Type.String({ description: "The agent's A2A endpoint, `<public base>/a2a/<id>` (base: PADDOCK_PUBLIC_URL, else the request's scheme and Host)." }),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'A2aAgent' },
);
export type AgentRegistrationView = Static<typeof AgentRegistration>;
