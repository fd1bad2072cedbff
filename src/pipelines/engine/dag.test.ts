import { describe, expect, it } from 'vitest';
import type { StageDefinition } from '../definition/types.js';
import { effectiveStage, readiness, retryDelayMs, type StageSnapshot } from './dag.js';

const snapshot = (name: string, status: string): StageSnapshot => ({ name, status, exit_code: null, attempt: 1 });
const scope = () => ({ input: { branch: 'main' }, stages: {}, state: {} });
const decide = (stage: Partial<StageDefinition>, dependencies: [string, string][]) =>
  readiness({ name: 's', type: 'command', command: 'true', depends_on: dependencies.map(([n]) => n), ...stage } as StageDefinition, new Map(dependencies.map(([n, s]) => [n, snapshot(n, s)])), scope);

describe('readiness (GitHub Actions semantics)', () => {
  it('waits while a dependency is unfinished', () =>
    expect(
      decide({}, [
        ['a', 'succeeded'],
        ['b', 'running'],
      ]).decision,
    ).toBe('wait'));
  it('starts when all dependencies succeeded', () =>
    expect(
      decide({}, [
        ['a', 'succeeded'],
        ['b', 'succeeded'],
      ]).decision,
    ).toBe('start'));
  it('skips when a dependency failed', () =>
    expect(
      decide({}, [
        ['a', 'failed'],
        ['b', 'succeeded'],
      ]),
    ).toEqual({ decision: 'skip', reason: 'dependency a did not succeed' }));
  it('skips when a dependency was skipped', () => expect(decide({}, [['a', 'skipped']]).decision).toBe('skip'));
  it('on_failure runs only when a dependency failed', () => {
    expect(decide({ condition: { on_failure: true } }, [['a', 'failed']]).decision).toBe('start');
    expect(decide({ condition: { on_failure: true } }, [['a', 'succeeded']]).decision).toBe('skip');
  });
  it('evaluates if over the run input', () => {
    expect(decide({ condition: { if: 'input.branch == "main"' } }, []).decision).toBe('start');
    expect(decide({ condition: { if: 'input.branch == "dev"' } }, [])).toEqual({ decision: 'skip', reason: 'condition.if is false' });
  });
});

describe('retry backoff', () => {
  it('doubles from backoff up to max_backoff', () => {
    const settings = effectiveStage({ name: 's', type: 'command', retry: { max_attempts: 6, backoff: '1s', max_backoff: '5s' } }, {});
    expect([1, 2, 3, 4, 5].map((failures) => retryDelayMs(settings, failures))).toEqual([1000, 2000, 4000, 5000, 5000]);
  });
  it('takes defaults from the pipeline', () => {
    const settings = effectiveStage({ name: 's', type: 'command' }, { template: 'minimal', on_failure: 'continue', retry: { max_attempts: 3 }, timeout: '2m' });
    expect(settings).toMatchObject({ template: 'minimal', onFailure: 'continue', maxAttempts: 3, timeoutMs: 120_000 });
  });
});
