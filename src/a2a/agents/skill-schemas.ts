// Skills' input schemas: checked (compiled) when an agent is registered or changed, then compiled once
// per agent version and kept, so validating a task's input costs one call of the compiled function.
import AjvModule, { type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import Ajv2020Module from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import type { Skill } from '../contract.js';

const Ajv = AjvModule.default ?? AjvModule;
const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;
const addFormats = addFormatsModule.default ?? addFormatsModule;

/** Compiled validators kept at most; the least recently compiled agent versions go first. */
const MAX_CACHED_AGENT_VERSIONS = 1000;

// `addUsedSchema: false`: a schema's own `$id` must not clash with another agent's. Remote `$ref`s
// are not fetched: a schema must be self-contained.
const options: Options = { allErrors: true, strict: false, addUsedSchema: false, validateSchema: true };
/** Draft 2020-12, the default; a schema whose `$schema` names draft-07 is read as draft-07. */
const draft2020 = addFormats(new Ajv2020(options));
const draft07 = addFormats(new Ajv(options));

function compile(schema: Record<string, unknown>): ValidateFunction {
  const ajv = typeof schema.$schema === 'string' && schema.$schema.includes('draft-07') ? draft07 : draft2020;
  try {
    return ajv.compile(schema);
  } finally {
    // Ajv keeps every compiled schema object; these are ours to cache, not its.
    ajv.removeSchema(schema);
  }
}

/** Whether JSON `value` nests objects and arrays deeper than `maxDepth`; iterative, so any depth is safe to ask about. */
export function nestsDeeperThan(value: unknown, maxDepth: number): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length) {
    const [item, depth] = pending.pop()!;
    if (item === null || typeof item !== 'object') continue;
    if (depth > maxDepth) return true;
    for (const child of Object.values(item)) pending.push([child, depth + 1]);
  }
  return false;
}

/** Why the schema does not compile, or null when it does. */
export function schemaProblem(schema: Record<string, unknown>): string | null {
  try {
    compile(schema);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

export interface InputError {
  /** JSON pointer into the input (`/query`, `` for the input itself). */
  path: string;
  message: string;
}

export function describeInputErrors(errors: ErrorObject[] | null | undefined): InputError[] {
  return (errors ?? []).map((error) => {
    const params = error.params as Record<string, unknown>;
    if (error.keyword === 'required') return { path: `${error.instancePath}/${String(params.missingProperty)}`, message: 'is required' };
    if (error.keyword === 'additionalProperties') return { path: `${error.instancePath}/${String(params.additionalProperty)}`, message: 'is not allowed by the schema' };
    return { path: error.instancePath, message: error.message ?? error.keyword };
  });
}

export class SkillValidators {
  private readonly byAgentVersion = new Map<string, Map<string, ValidateFunction>>();

  /** The compiled validator of the skill at this version of the agent. */
  validator(agentId: string, version: number, skill: Skill): ValidateFunction {
    const key = `${agentId}@${version}`;
    let skills = this.byAgentVersion.get(key);
    if (!skills) {
      if (this.byAgentVersion.size >= MAX_CACHED_AGENT_VERSIONS) this.byAgentVersion.delete(this.byAgentVersion.keys().next().value!);
      skills = new Map();
      this.byAgentVersion.set(key, skills);
    }
    let validate = skills.get(skill.id);
    if (!validate) {
      validate = compile(skill.input_schema);
      skills.set(skill.id, validate);
    }
    return validate;
  }

  /** Drops every version of the agent (after a change or a delete). */
  forget(agentId: string): void {
    for (const key of this.byAgentVersion.keys()) if (key.startsWith(`${agentId}@`)) this.byAgentVersion.delete(key);
  }
}
