// Rules a pipeline definition must meet beyond its JSON shape (the route schema checks that): unique
// stage names, known dependencies, no cycles (the cycle is named), durations, retry bounds, CEL that
// type-checks, and the config each stage type needs. Every refusal names the field.
import { Invalid } from '../../core/errors.js';
import { isScenarioId, isSuiteId } from '../../evals/ids.js';
import { findTemplate } from '../../runtime/templates/index.js';
import { CHANNELS_FOR_APPROVAL } from './approval-channels.js';
import { parseDurationMs } from './duration.js';
import { checkExpression } from './expressions.js';
import type { PipelineDefaults, PipelineDefinition, PipelineDraft, RetryPolicy, StageDraft } from './types.js';

export const MAX_STAGES = 100;
export const MAX_RETRY_ATTEMPTS = 20;
const MAX_TIMEOUT_MS = 24 * 3_600_000;

/** Refuses a draft that breaks a rule; one that passes is a PipelineDefinition (each config fits its stage type). */
export function validateDefinition(definition: PipelineDraft): asserts definition is PipelineDefinition {
  const { stages, defaults } = definition;
  if (stages.length === 0) throw new Invalid('body.stages', 'must hold at least one stage');
  if (stages.length > MAX_STAGES) throw new Invalid('body.stages', `may hold at most ${MAX_STAGES} stages`);
  validateDefaults(defaults);
  const names = new Set<string>();
  stages.forEach((stage, index) => {
    const field = `body.stages[${index}]`;
    if (names.has(stage.name)) throw new Invalid(`${field}.name`, `"${stage.name}" is used by another stage; stage names must be unique`);
    names.add(stage.name);
  });
  stages.forEach((stage, index) => validateStage(stage, `body.stages[${index}]`, names));
  const cycle = findCycle(stages);
  if (cycle) throw new Invalid('body.stages', `depends_on forms a cycle: ${cycle.join(' → ')}`);
}

function validateDefaults(defaults: PipelineDefaults): void {
  if (defaults.retry) validateRetry(defaults.retry, 'body.defaults.retry');
  if (defaults.template !== undefined) validateTemplate(defaults.template, 'body.defaults.template');
  if (defaults.timeout !== undefined) validateDuration(defaults.timeout, 'body.defaults.timeout', MAX_TIMEOUT_MS);
}

function validateStage(stage: StageDraft, field: string, names: Set<string>): void {
  if (stage.type === 'command' && !stage.command?.trim()) throw new Invalid(`${field}.command`, 'is required for a command stage');
  if (stage.type !== 'command' && stage.command !== undefined) throw new Invalid(`${field}.command`, `is only used by command stages, not ${stage.type}`);
  if (stage.template !== undefined) validateTemplate(stage.template, `${field}.template`);
  if (stage.timeout !== undefined) validateDuration(stage.timeout, `${field}.timeout`, MAX_TIMEOUT_MS);
  if (stage.retry) validateRetry(stage.retry, `${field}.retry`);
  const seen = new Set<string>();
  (stage.depends_on ?? []).forEach((dependency, index) => {
    const dependencyField = `${field}.depends_on[${index}]`;
    if (dependency === stage.name) throw new Invalid(dependencyField, `"${dependency}" is the stage itself: depends_on forms a cycle: ${stage.name} → ${stage.name}`);
    if (!names.has(dependency)) throw new Invalid(dependencyField, `names no stage of this pipeline: "${dependency}"`);
    if (seen.has(dependency)) throw new Invalid(dependencyField, `repeats "${dependency}"`);
    seen.add(dependency);
  });
  if (stage.condition) {
    if (stage.condition.on_success && stage.condition.on_failure) throw new Invalid(`${field}.condition`, 'cannot set both on_success and on_failure');
    if ((stage.condition.on_success || stage.condition.on_failure) && !stage.depends_on?.length) {
      throw new Invalid(`${field}.condition`, 'on_success and on_failure look at dependencies: the stage has no depends_on');
    }
    if (stage.condition.if !== undefined) {
      const problem = checkExpression(stage.condition.if);
      if (problem) throw new Invalid(`${field}.condition.if`, `is not a valid CEL expression: ${problem}`);
    }
  }
  validateConfig(stage, `${field}.config`);
}

function validateTemplate(name: string, field: string): void {
  if (!findTemplate(name)) throw new Invalid(field, `names no template: "${name}" (see GET /v1/templates)`);
}

function validateDuration(text: string, field: string, maxMs: number): number {
  const ms = parseDurationMs(text);
  if (ms === null) throw new Invalid(field, `must be a duration such as 30s, 5m or 1h (units ms, s, m, h, d), got "${text}"`);
  if (ms <= 0) throw new Invalid(field, 'must be longer than 0');
  if (ms > maxMs) throw new Invalid(field, `must be at most ${maxMs / 3_600_000}h`);
  return ms;
}

function validateRetry(retry: RetryPolicy, field: string): void {
  if (retry.max_attempts !== undefined && (retry.max_attempts < 1 || retry.max_attempts > MAX_RETRY_ATTEMPTS)) {
    throw new Invalid(`${field}.max_attempts`, `must be between 1 and ${MAX_RETRY_ATTEMPTS}`);
  }
  const backoff = retry.backoff === undefined ? null : validateDuration(retry.backoff, `${field}.backoff`, MAX_TIMEOUT_MS);
  const maxBackoff = retry.max_backoff === undefined ? null : validateDuration(retry.max_backoff, `${field}.max_backoff`, MAX_TIMEOUT_MS);
  if (backoff !== null && maxBackoff !== null && maxBackoff < backoff) throw new Invalid(`${field}.max_backoff`, 'must not be shorter than backoff');
}

type FieldType = 'string' | 'number' | 'integer' | 'boolean' | 'string[]';
const CONFIG_FIELDS: Record<StageDraft['type'], Record<string, FieldType>> = {
  command: {},
  await_approval: { message: 'string', channels: 'string[]', sla_timeout: 'string', auto_decision: 'string' },
  gate: { trust_above: 'integer', cost_below: 'number', expression: 'string', state_key: 'string', fail_fast: 'boolean' },
  eval: {
    scenario_id: 'string',
    scenario_name: 'string',
    suite_id: 'string',
    suite_name: 'string',
    min_pass_rate: 'number',
    max_cost_usd: 'number',
    fail_on_regression: 'boolean',
    baseline_count: 'integer',
    regression_threshold: 'number',
    store_result_in_state: 'boolean',
    result_state_key: 'string',
  },
  a2a: { agent_url: 'string', skill_id: 'string', prompt: 'string', max_cost_usd: 'number', auth_secret: 'string' },
};

/** Account secret names, as the secrets feature takes them (a2a `auth_secret`). */
export const SECRET_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

function typeMatches(value: unknown, type: FieldType): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'string[]':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
  }
}

function validateConfig(stage: StageDraft, field: string): void {
  const allowed = CONFIG_FIELDS[stage.type];
  const config = stage.config ?? {};
  for (const [key, value] of Object.entries(config)) {
    const type = allowed[key];
    if (!type) {
      const known = Object.keys(allowed);
      throw new Invalid(`${field}.${key}`, `is not a ${stage.type} config field${known.length ? ` (known: ${known.join(', ')})` : ' (command stages take no config)'}`);
    }
    if (!typeMatches(value, type)) throw new Invalid(`${field}.${key}`, `must be ${type === 'string[]' ? 'an array of strings' : `a${type === 'integer' ? 'n' : ''} ${type}`}`);
  }
  const requireField = (key: string) => {
    if (config[key] === undefined) throw new Invalid(`${field}.${key}`, `is required for a ${stage.type} stage`);
  };
  const between = (key: string, min: number, max: number) => {
    const value = config[key] as number | undefined;
    if (value !== undefined && (value < min || value > max)) throw new Invalid(`${field}.${key}`, `must be between ${min} and ${max}`);
  };
  switch (stage.type) {
    case 'await_approval': {
      const channels = (config.channels as string[] | undefined) ?? [];
      channels.forEach((channel, index) => {
        if (!CHANNELS_FOR_APPROVAL.includes(channel as never)) throw new Invalid(`${field}.channels[${index}]`, `must be one of ${CHANNELS_FOR_APPROVAL.join(', ')}`);
      });
      if (config.sla_timeout !== undefined) validateDuration(config.sla_timeout as string, `${field}.sla_timeout`, 30 * 86_400_000);
      if (config.auto_decision !== undefined) {
        if (!['reject', 'approve'].includes(config.auto_decision as string)) throw new Invalid(`${field}.auto_decision`, 'must be reject or approve');
        if (config.sla_timeout === undefined) throw new Invalid(`${field}.auto_decision`, 'needs sla_timeout: it is applied when the SLA expires');
      }
      break;
    }
    case 'gate': {
      if (!['trust_above', 'cost_below', 'expression', 'state_key'].some((key) => config[key] !== undefined)) {
        throw new Invalid(field, 'needs at least one check: trust_above, cost_below, expression or state_key');
      }
      between('trust_above', 0, 100);
      between('cost_below', 0, Number.MAX_SAFE_INTEGER);
      if (config.expression !== undefined) {
        const problem = checkExpression(config.expression as string);
        if (problem) throw new Invalid(`${field}.expression`, `is not a valid CEL expression: ${problem}`);
      }
      if (config.state_key !== undefined) validateStateKey(config.state_key as string, `${field}.state_key`);
      break;
    }
    case 'eval': {
      const targets = ['scenario_id', 'scenario_name', 'suite_id', 'suite_name'].filter((key) => config[key] !== undefined);
      if (targets.length !== 1) throw new Invalid(field, 'needs exactly one of scenario_id, scenario_name, suite_id, suite_name');
      if (config.scenario_id !== undefined && !isScenarioId(config.scenario_id as string)) {
        throw new Invalid(`${field}.scenario_id`, 'must be a scenario id (evs_…, as POST /v1/evals/scenarios answers); to name a scenario by its name use scenario_name');
      }
      if (config.suite_id !== undefined && !isSuiteId(config.suite_id as string)) {
        throw new Invalid(`${field}.suite_id`, 'must be a suite id (evt_…, as POST /v1/evals/suites answers); to name a suite by its name use suite_name');
      }
      between('min_pass_rate', 0, 1);
      between('max_cost_usd', 0, Number.MAX_SAFE_INTEGER);
      between('baseline_count', 1, 100);
      between('regression_threshold', 0, 1);
      if (config.result_state_key !== undefined) validateStateKey(config.result_state_key as string, `${field}.result_state_key`);
      break;
    }
    case 'a2a': {
      for (const key of ['agent_url', 'skill_id', 'prompt']) requireField(key);
      let url: URL;
      try {
        url = new URL(config.agent_url as string);
      } catch {
        throw new Invalid(`${field}.agent_url`, 'must be an http(s) URL');
      }
      if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Invalid(`${field}.agent_url`, 'must be an http(s) URL');
      between('max_cost_usd', 0, Number.MAX_SAFE_INTEGER);
      if (config.auth_secret !== undefined && !SECRET_NAME_PATTERN.test(config.auth_secret as string)) {
        throw new Invalid(`${field}.auth_secret`, 'must name an account secret ([A-Za-z_][A-Za-z0-9_]*, up to 128 characters)');
      }
      break;
    }
  }
}

function validateStateKey(key: string, field: string): void {
  if (key.length === 0 || key.length > 256) throw new Invalid(field, 'must be 1-256 characters');
}

/** The first cycle found among `depends_on` edges, as stage names ending where it began; null if none. */
export function findCycle(stages: Pick<StageDraft, 'name' | 'depends_on'>[]): string[] | null {
  const dependencies = new Map(stages.map((stage) => [stage.name, stage.depends_on ?? []]));
  const state = new Map<string, 'visiting' | 'done'>();
  const path: string[] = [];
  const visit = (name: string): string[] | null => {
    if (state.get(name) === 'done') return null;
    if (state.get(name) === 'visiting') return [...path.slice(path.indexOf(name)), name];
    state.set(name, 'visiting');
    path.push(name);
    for (const dependency of dependencies.get(name) ?? []) {
      const cycle = visit(dependency);
      if (cycle) return cycle;
    }
    path.pop();
    state.set(name, 'done');
    return null;
  };
  for (const stage of stages) {
    const cycle = visit(stage.name);
    // Edges point at dependencies; read the cycle in execution order (dependency first).
    if (cycle) return cycle.reverse();
  }
  return null;
}
