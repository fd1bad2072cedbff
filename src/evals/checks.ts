// The checks a scenario applies to its command's result, and the scenario score they yield:
// score = (sum of the weights of passed checks) / (sum of all weights), in 0..1.
import vm from 'node:vm';
export const CHECK_TYPES = ['exit_code', 'output_contains', 'output_matches', 'output_equals'] as const;
export type CheckType = (typeof CHECK_TYPES)[number];
export type OutputStream = 'stdout' | 'stderr';

export type Check =
  | { type: 'exit_code'; equals: number; weight?: number }
  | { type: 'output_contains'; value: string; stream?: OutputStream; weight?: number }
  | { type: 'output_matches'; pattern: string; flags?: string; stream?: OutputStream; weight?: number }
  | { type: 'output_equals'; value: string; trim?: boolean; stream?: OutputStream; weight?: number };

export interface CommandResult {
  exitCode: number;
  stdout: string;
  stderr: string;
}

export interface CheckOutcome {
  type: CheckType;
  weight: number;
  passed: boolean;
  expected: string;
  actual: string;
}

export const DEFAULT_CHECK_WEIGHT = 1;
/** Regular expressions run on the server: their input is bounded, and so is their time. */
export const MATCHED_OUTPUT_CHARS = 64 * 1024;
export const PATTERN_TIMEOUT_MS = 1000;

// A user's pattern can backtrack for hours; V8 only lets a vm script be interrupted, so the match runs
// in one reused context with a time limit.
const matchContext = vm.createContext({ pattern: '', flags: '', text: '' });
const matchScript = new vm.Script('new RegExp(pattern, flags).test(text)');

/** True or false, or null when the match did not finish within `timeoutMs`. */
export function matchesWithin(pattern: string, flags: string, text: string, timeoutMs = PATTERN_TIMEOUT_MS): boolean | null {
  Object.assign(matchContext, { pattern, flags, text });
  try {
    return matchScript.runInContext(matchContext, { timeout: timeoutMs }) === true;
  } catch (error) {
    if ((error as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return null;
    throw error;
  } finally {
    matchContext.text = '';
  }
}
const EXCERPT_CHARS = 200;

function excerpt(text: string): string {
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}

/** The reason a check's pattern cannot be compiled, or null; used when a scenario is saved. */
export function patternProblem(pattern: string, flags = ''): string | null {
  try {
    new RegExp(pattern, flags);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

export function applyCheck(check: Check, result: CommandResult): CheckOutcome {
  const weight = check.weight ?? DEFAULT_CHECK_WEIGHT;
  if (check.type === 'exit_code') {
    return { type: check.type, weight, passed: result.exitCode === check.equals, expected: String(check.equals), actual: String(result.exitCode) };
  }
  const output = check.stream === 'stderr' ? result.stderr : result.stdout;
  switch (check.type) {
    case 'output_contains':
      return { type: check.type, weight, passed: output.includes(check.value), expected: `contains ${JSON.stringify(check.value)}`, actual: excerpt(output) };
    case 'output_matches': {
      const matched = matchesWithin(check.pattern, check.flags ?? '', output.slice(0, MATCHED_OUTPUT_CHARS));
      const actual = matched === null ? `pattern gave up after ${PATTERN_TIMEOUT_MS} ms on: ${excerpt(output)}` : excerpt(output);
      return { type: check.type, weight, passed: matched === true, expected: `matches /${check.pattern}/${check.flags ?? ''}`, actual };
    }
    case 'output_equals': {
      const trim = check.trim ?? true;
      const actual = trim ? output.trim() : output;
      const expected = trim ? check.value.trim() : check.value;
      return { type: check.type, weight, passed: actual === expected, expected: JSON.stringify(expected), actual: excerpt(JSON.stringify(actual)) };
    }
  }
}

export interface ScenarioScore {
  score: number;
  passed: boolean;
  checks: CheckOutcome[];
}

export function scoreScenario(checks: Check[], result: CommandResult, passThreshold: number): ScenarioScore {
  const outcomes = checks.map((check) => applyCheck(check, result));
  const total = outcomes.reduce((sum, o) => sum + o.weight, 0);
  const earned = outcomes.reduce((sum, o) => sum + (o.passed ? o.weight : 0), 0);
  const score = total > 0 ? earned / total : 0;
  return { score, passed: score >= passThreshold - 1e-9, checks: outcomes };
}
