import { describe, expect, it } from 'vitest';
import { parseDurationMs } from './duration.js';
import { findCycle, validateDefinition } from './validate.js';
import type { PipelineDraft, StageDraft } from './types.js';

const command = (name: string, extra: Partial<StageDraft> = {}): StageDraft => ({ name, type: 'command', command: 'true', ...extra });
const definition = (stages: StageDraft[]): PipelineDraft => ({ description: '', stages, defaults: {} });
const refusal = (stages: StageDraft[]) => {
  try {
    validateDefinition(definition(stages));
  } catch (error) {
    return (error as Error).message;
  }
  return null;
};

describe('duration strings', () => {
  it('reads units and compound durations', () => {
    expect(parseDurationMs('30s')).toBe(30_000);
    expect(parseDurationMs('5m')).toBe(300_000);
    expect(parseDurationMs('1h30m')).toBe(5_400_000);
    expect(parseDurationMs('250ms')).toBe(250);
  });
  it('refuses anything else', () => {
    for (const bad of ['', '5', 'm', '1.5h', '5 m', '-1s', '1w', '5mins']) expect(parseDurationMs(bad)).toBeNull();
  });
});

describe('cycle detection', () => {
  it('names the cycle in execution order', () => {
    expect(
      findCycle([
        { name: 'a', depends_on: ['c'] },
        { name: 'b', depends_on: ['a'] },
        { name: 'c', depends_on: ['b'] },
      ]),
    ).toEqual(['a', 'b', 'c', 'a']);
  });
  it('finds none in a diamond', () => {
    expect(findCycle([{ name: 'a' }, { name: 'b', depends_on: ['a'] }, { name: 'c', depends_on: ['a'] }, { name: 'd', depends_on: ['b', 'c'] }])).toBeNull();
  });
});

describe('definition rules', () => {
  it('accepts a valid DAG', () => {
    expect(refusal([command('build'), command('test', { depends_on: ['build'], condition: { if: 'input.branch == "main"' } })])).toBeNull();
    expect(refusal([{ name: 'e', type: 'eval', config: { scenario_id: 'evs_01jb0000000000000000000000' } } as StageDraft])).toBeNull();
    expect(refusal([{ name: 'e', type: 'eval', config: { suite_id: 'evt_01jb0000000000000000000000' } } as StageDraft])).toBeNull();
  });
  it.each([
    ['duplicate names', [command('a'), command('a')], /body.stages\[1\].name "a" is used by another stage/],
    ['unknown dependency', [command('a', { depends_on: ['zzz'] })], /depends_on\[0\] names no stage of this pipeline: "zzz"/],
    ['self dependency', [command('a', { depends_on: ['a'] })], /cycle: a → a/],
    ['a cycle', [command('a', { depends_on: ['b'] }), command('b', { depends_on: ['a'] })], /cycle: (a → b → a|b → a → b)/],
    ['bad timeout', [command('a', { timeout: '5 minutes' })], /timeout must be a duration/],
    ['bad retry', [command('a', { retry: { max_attempts: 0 } })], /max_attempts must be between 1/],
    ['backoff beyond max', [command('a', { retry: { backoff: '1m', max_backoff: '1s' } })], /max_backoff must not be shorter/],
    ['CEL syntax', [command('a', { condition: { if: 'input.branch ==' } })], /condition.if is not a valid CEL expression/],
    ['CEL unknown variable', [command('a', { condition: { if: 'branch == "main"' } })], /condition.if is not a valid CEL expression/],
    ['CEL not a bool', [command('a', { condition: { if: '1 + 2' } })], /must evaluate to a bool/],
    ['command missing', [{ name: 'a', type: 'command' } as StageDraft], /command is required/],
    ['gate without checks', [{ name: 'g', type: 'gate', config: {} } as StageDraft], /needs at least one check/],
    ['gate bad trust', [{ name: 'g', type: 'gate', config: { trust_above: 101 } } as StageDraft], /trust_above must be between 0 and 100/],
    ['gate bad type', [{ name: 'g', type: 'gate', config: { cost_below: 'x' } } as StageDraft], /cost_below must be a number/],
    ['approval channel', [{ name: 'x', type: 'await_approval', config: { channels: ['sms'] } } as StageDraft], /channels\[0\] must be one of dashboard, email, chat_a/],
    ['eval two targets', [{ name: 'e', type: 'eval', config: { scenario_name: 'a', suite_name: 'b' } } as StageDraft], /exactly one of scenario_id/],
    ['eval UUID scenario_id', [{ name: 'e', type: 'eval', config: { scenario_id: '3fa85f64-5717-4562-b3fc-2c963f66afa6' } } as StageDraft], /config.scenario_id must be a scenario id \(evs_/],
    ['eval suite id as scenario_id', [{ name: 'e', type: 'eval', config: { scenario_id: 'evt_01jb0000000000000000000000' } } as StageDraft], /config.scenario_id must be a scenario id/],
    ['eval malformed suite_id', [{ name: 'e', type: 'eval', config: { suite_id: 'evt_x' } } as StageDraft], /config.suite_id must be a suite id \(evt_/],
    ['a2a missing url', [{ name: 'x', type: 'a2a', config: { skill_id: 's', prompt: 'p' } } as StageDraft], /agent_url is required/],
    ['unknown config field', [{ name: 'g', type: 'gate', config: { trust: 3 } } as StageDraft], /config.trust is not a gate config field/],
  ])('refuses %s', (_what, stages, pattern) => {
    expect(refusal(stages as StageDraft[])).toMatch(pattern);
  });
});
