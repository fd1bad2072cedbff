// Agent registrations as users manage them (register, list, read, change, delete) and what tasks and
// the protocol binding need of them (AgentDirectory). An agent's pipeline is reached through the
// pipelines feature, never its tables.
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../../core/db/database.js';
import type { Database } from '../../core/db/schema.js';
import { Conflict, HttpError, Invalid, LimitExceeded } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { nowIso } from '../../core/time.js';
import { findTemplate } from '../../runtime/templates/index.js';
import type { AgentDirectory, AgentRecord, Skill } from '../contract.js';
import { DEFAULT_RATE_LIMIT_RPM, MAX_AGENTS_PER_ACCOUNT, MAX_DISCOVERY_CARDS, MAX_INPUT_SCHEMA_BYTES, MAX_INPUT_SCHEMA_DEPTH } from './limits.js';
import type { CreateAgentInput, UpdateAgentInput } from './schemas.js';
import { describeInputErrors, nestsDeeperThan, schemaProblem, SkillValidators } from './skill-schemas.js';
import * as store from './store.js';

/** What the registry needs of pipelines: the account's pipeline and whether it is archived. */
export interface AgentPipelines {
  /** Throws a 404 when the account has no such pipeline. */
  getRow(accountId: string, pipelineId: string): Promise<{ id: string; status: string }>;
}

type SkillInput = CreateAgentInput['skills'][number];

export function agentRecord(row: store.AgentRow): AgentRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    description: row.description,
    pipelineId: row.pipeline_id,
    template: row.template,
    skills: JSON.parse(row.skills) as Skill[],
    public: row.public === 1,
    enabled: row.enabled === 1,
    maxCostPerTask: row.max_cost_per_task,
    rateLimitRpm: row.rate_limit_rpm,
    version: row.version,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function agentNotFound(): HttpError<404> {
  return new HttpError(404, 'agent not found', 'agent_not_found');
}

function checkedSkills(skills: SkillInput[]): Skill[] {
  const seen = new Set<string>();
  return skills.map((skill, i) => {
    if (seen.has(skill.id)) throw new Invalid(`body.skills[${i}].id`, `repeats the skill id "${skill.id}": skill ids are unique within an agent`);
    seen.add(skill.id);
    const field = `body.skills[${i}].input_schema`;
    if (nestsDeeperThan(skill.input_schema, MAX_INPUT_SCHEMA_DEPTH)) throw new Invalid(field, `nests objects and arrays more than ${MAX_INPUT_SCHEMA_DEPTH} levels deep`);
    if (Buffer.byteLength(JSON.stringify(skill.input_schema)) > MAX_INPUT_SCHEMA_BYTES) throw new Invalid(field, `is over ${MAX_INPUT_SCHEMA_BYTES / 1024} KiB as JSON`);
    const problem = schemaProblem(skill.input_schema);
    if (problem) throw new Invalid(field, `is not a valid JSON Schema: ${problem}`);
    return { id: skill.id, name: skill.name, description: skill.description ?? '', tags: skill.tags ?? [], input_schema: skill.input_schema };
  });
}

function checkTemplate(template: string | null | undefined): void {
  if (template && !findTemplate(template)) throw new Invalid('body.template', `names no template: "${template}" (see GET /v1/templates)`);
}

export class AgentService implements AgentDirectory {
  private readonly validators = new SkillValidators();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly pipelines: AgentPipelines,
  ) {}

  async create(accountId: string, input: CreateAgentInput): Promise<AgentRecord> {
    const skills = checkedSkills(input.skills);
    checkTemplate(input.template);
    await this.checkPipeline(accountId, input.pipeline_id);
    const now = nowIso();
    const row: store.AgentRow = {
      id: newId('agt'),
      account_id: accountId,
      name: input.name,
      description: input.description ?? '',
      pipeline_id: input.pipeline_id,
      template: input.template ?? null,
      skills: JSON.stringify(skills),
      public: input.public ? 1 : 0,
      enabled: 1,
      max_cost_per_task: input.max_cost_per_task ?? null,
      rate_limit_rpm: input.rate_limit_rpm ?? DEFAULT_RATE_LIMIT_RPM,
      version: 1,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.db.transaction().execute(async (trx) => {
        if ((await store.countAgents(trx, accountId)) >= MAX_AGENTS_PER_ACCOUNT) {
          throw new LimitExceeded(`an account can register ${MAX_AGENTS_PER_ACCOUNT} agents; delete one first`, 'quota_exceeded');
        }
        await store.insertAgent(trx, row);
      });
    } catch (error) {
      throw this.nameTaken(error, input.name);
    }
    return agentRecord(row);
  }

  async list(accountId: string): Promise<AgentRecord[]> {
    return (await store.listAgents(this.db, accountId)).map(agentRecord);
  }

  async get(accountId: string, agentId: string): Promise<AgentRecord> {
    const row = await store.findAgent(this.db, accountId, agentId);
    if (!row) throw agentNotFound();
    return agentRecord(row);
  }

  async update(accountId: string, agentId: string, input: UpdateAgentInput): Promise<AgentRecord> {
    if (!Object.keys(input).length) {
      throw new Invalid('body', 'names nothing to change: send any of name, description, pipeline_id, template, skills, public, enabled, max_cost_per_task, rate_limit_rpm');
    }
    const skills = input.skills === undefined ? undefined : checkedSkills(input.skills);
    checkTemplate(input.template);
    const current = await this.get(accountId, agentId);
    if (input.pipeline_id !== undefined) await this.checkPipeline(accountId, input.pipeline_id);
    const changes = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.pipeline_id !== undefined ? { pipeline_id: input.pipeline_id } : {}),
      ...(input.template !== undefined ? { template: input.template } : {}),
      ...(skills !== undefined ? { skills: JSON.stringify(skills) } : {}),
      ...(input.public !== undefined ? { public: input.public ? 1 : 0 } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled ? 1 : 0 } : {}),
      ...(input.max_cost_per_task !== undefined ? { max_cost_per_task: input.max_cost_per_task } : {}),
      ...(input.rate_limit_rpm !== undefined ? { rate_limit_rpm: input.rate_limit_rpm } : {}),
      version: current.version + 1,
      updated_at: nowIso(),
    };
    let updated: boolean;
    try {
      updated = await store.updateAgent(this.db, accountId, agentId, current.version, changes);
    } catch (error) {
      throw this.nameTaken(error, input.name ?? current.name);
    }
    if (!updated) throw new Conflict('the agent changed meanwhile (another update or a delete); read it again');
    this.validators.forget(agentId);
    return this.get(accountId, agentId);
  }

  /** Tasks already created run to their end; new tasks for the agent are 404 `agent_not_found`. */
  async delete(accountId: string, agentId: string): Promise<void> {
    if (!(await store.deleteAgent(this.db, accountId, agentId))) throw agentNotFound();
    this.validators.forget(agentId);
  }

  async findPublic(agentId: string): Promise<AgentRecord | null> {
    const row = await store.findPublicAgent(this.db, agentId);
    return row ? agentRecord(row) : null;
  }

  /** Every public, enabled agent of every account (discovery), oldest registration first. */
  async listPublic(): Promise<AgentRecord[]> {
    return (await store.listPublicAgents(this.db, MAX_DISCOVERY_CARDS)).map(agentRecord);
  }

  /** Any account's agent, public or not, enabled or not: discovery decides who may see it. */
  async find(agentId: string): Promise<AgentRecord | null> {
    const row = await store.findAnyAgent(this.db, agentId);
    return row ? agentRecord(row) : null;
  }

  validateInput(agent: AgentRecord, skillId: string, input: unknown): void {
    const skill = agent.skills.find((one) => one.id === skillId);
    if (!skill) {
      throw new HttpError(400, `the agent has no skill "${skillId}"; its skills: ${agent.skills.map((one) => one.id).join(', ')}`, 'skill_not_found', { field: 'body.skill_id' });
    }
    const validate = this.validators.validator(agent.id, agent.version, skill);
    if (validate(input)) return;
    const errors = describeInputErrors(validate.errors);
    const first = errors[0];
    throw new HttpError(400, `body.input does not match the input_schema of skill "${skillId}": ${first ? `${first.path || '/'} ${first.message}` : 'rejected'}`, 'invalid_input', {
      field: 'body.input',
      errors,
    });
  }

  private async checkPipeline(accountId: string, pipelineId: string): Promise<void> {
    let pipeline: { status: string };
    try {
      pipeline = await this.pipelines.getRow(accountId, pipelineId);
    } catch (error) {
      if (error instanceof HttpError && error.statusCode === 404) {
        throw new HttpError(404, `body.pipeline_id names no pipeline of this account: ${pipelineId}`, 'not_found', { field: 'body.pipeline_id' });
      }
      throw error;
    }
    if (pipeline.status === 'archived')
      throw new HttpError(409, `body.pipeline_id names an archived pipeline (${pipelineId}): an agent needs an active one`, 'conflict', { field: 'body.pipeline_id' });
  }

  private nameTaken(error: unknown, name: string): unknown {
    if (isUniqueViolation(error)) return new HttpError(409, `body.name "${name}" is taken: an agent of this account already has it`, 'already_exists', { field: 'body.name' });
    return error;
  }
}
