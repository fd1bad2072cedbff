import { describe, expect, it } from 'vitest';
import { applyCheck, matchesWithin, patternProblem, scoreScenario, type Check } from './checks.js';

const result = { exitCode: 0, stdout: '  hello world\n', stderr: 'warning: x\n' };

describe('applyCheck', () => {
  it('compares the exit code', () => {
    expect(applyCheck({ type: 'exit_code', equals: 0 }, result)).toMatchObject({ passed: true, expected: '0', actual: '0', weight: 1 });
    expect(applyCheck({ type: 'exit_code', equals: 1 }, result).passed).toBe(false);
  });

  it('reads stdout by default and stderr when asked', () => {
    expect(applyCheck({ type: 'output_contains', value: 'world' }, result).passed).toBe(true);
    expect(applyCheck({ type: 'output_contains', value: 'warning' }, result).passed).toBe(false);
    expect(applyCheck({ type: 'output_contains', value: 'warning', stream: 'stderr' }, result).passed).toBe(true);
  });

  it('matches regular expressions with flags', () => {
    expect(applyCheck({ type: 'output_matches', pattern: '^HELLO', flags: 'im' }, { ...result, stdout: 'hello\n' }).passed).toBe(true);
    expect(applyCheck({ type: 'output_matches', pattern: '^hello' }, result).passed).toBe(false);
  });

  it('compares trimmed output unless trim is false', () => {
    expect(applyCheck({ type: 'output_equals', value: 'hello world' }, result).passed).toBe(true);
    expect(applyCheck({ type: 'output_equals', value: 'hello world', trim: false }, result).passed).toBe(false);
  });

  it('gives up on a pattern that backtracks too long, and the check fails', () => {
    const started = Date.now();
    const outcome = applyCheck({ type: 'output_matches', pattern: '^(a+)+$' }, { ...result, stdout: `${'a'.repeat(40)}!` });
    expect(Date.now() - started).toBeLessThan(3000);
    expect(outcome.passed).toBe(false);
    expect(outcome.actual).toMatch(/^pattern gave up after 1000 ms on: a+!$/);
    expect(matchesWithin('x', '', 'xyz')).toBe(true);
  });

  it('names what is wrong with a pattern', () => {
    expect(patternProblem('(')).toMatch(/Unterminated group/);
    expect(patternProblem('a+')).toBeNull();
  });
});

describe('scoreScenario', () => {
  const checks: Check[] = [
    { type: 'exit_code', equals: 0, weight: 2 },
    { type: 'output_contains', value: 'hello' },
    { type: 'output_contains', value: 'absent' },
  ];

  it('scores the weight of passed checks over the total weight', () => {
    const scored = scoreScenario(checks, result, 1);
    expect(scored.score).toBe(0.75);
    expect(scored.passed).toBe(false);
    expect(scored.checks.map((c) => c.passed)).toEqual([true, true, false]);
  });

  it('passes when the score reaches the threshold', () => {
    expect(scoreScenario(checks, result, 0.75).passed).toBe(true);
    expect(scoreScenario(checks, { ...result, exitCode: 3 }, 0.75)).toMatchObject({ score: 0.25, passed: false });
  });
});
