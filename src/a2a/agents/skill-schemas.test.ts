import { describe, expect, it } from 'vitest';
import type { Skill } from '../contract.js';
import { describeInputErrors, schemaProblem, SkillValidators } from './skill-schemas.js';

const skill = (input_schema: Record<string, unknown>): Skill => ({ id: 's', name: 'S', description: '', tags: [], input_schema });

describe('SkillValidators', () => {
  it('compiles a skill once per agent version and again for a new version', () => {
    const validators = new SkillValidators();
    const v1 = skill({ type: 'object', properties: { n: { type: 'integer' } } });
    const first = validators.validator('agt_a', 1, v1);
    expect(validators.validator('agt_a', 1, v1)).toBe(first);
    const v2 = skill({ type: 'object', properties: { n: { type: 'string' } } });
    const second = validators.validator('agt_a', 2, v2);
    expect(second).not.toBe(first);
    expect(second({ n: 'x' })).toBe(true);
    expect(first({ n: 'x' })).toBe(false);
  });

  it('forgets every version of an agent, and no other agent', () => {
    const validators = new SkillValidators();
    const schema = skill({ type: 'object' });
    const a = validators.validator('agt_a', 1, schema);
    const ab = validators.validator('agt_ab', 1, schema);
    validators.forget('agt_a');
    expect(validators.validator('agt_a', 1, schema)).not.toBe(a);
    expect(validators.validator('agt_ab', 1, schema)).toBe(ab);
  });

  it('lets two agents use the same $id without a clash', () => {
    const validators = new SkillValidators();
    const one = validators.validator('agt_a', 1, skill({ $id: 'https://example.com/input', type: 'string' }));
    const two = validators.validator('agt_b', 1, skill({ $id: 'https://example.com/input', type: 'integer' }));
    expect(one('x')).toBe(true);
    expect(two(3)).toBe(true);
    expect(schemaProblem({ $id: 'https://example.com/input', type: 'boolean' })).toBeNull();
  });
});

describe('schemaProblem and describeInputErrors', () => {
  it("answers the compiler's complaint for a schema that does not compile", () => {
    expect(schemaProblem({ type: 'object' })).toBeNull();
    expect(schemaProblem({ type: 'nothing' })).toMatch(/type/);
    expect(schemaProblem({ $ref: '#/$defs/missing' })).toMatch(/resolve reference/);
  });

  it('points at the missing or unknown property itself', () => {
    const validate = new SkillValidators().validator('agt_a', 1, skill({ type: 'object', required: ['q'], properties: { q: { type: 'string' } }, additionalProperties: false }));
    validate({ extra: 1 });
    expect(describeInputErrors(validate.errors)).toEqual([
      { path: '/q', message: 'is required' },
      { path: '/extra', message: 'is not allowed by the schema' },
    ]);
  });
});
