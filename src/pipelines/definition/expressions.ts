// CEL for `condition.if` and gate `expression`: one environment declares what an expression may read,
// so a typo in a variable name or a type error is refused when the pipeline is saved, not at run time.
//   input  — the run's `{env, repo, branch, trigger}`
//   stages — by stage name: `{status, exit_code, attempt}` of stages that have finished
//   state  — the run's state entries by key (values as stored: strings; JSON entries parsed)
import { Environment } from '@marcbachmann/cel-js';

const environment = new Environment().registerVariable('input', 'map').registerVariable('stages', 'map').registerVariable('state', 'map');

/** Null when `expression` parses and type-checks to a bool, else why not. */
export function checkExpression(expression: string): string | null {
  let result: { valid: boolean; type?: string; error?: { message?: string } };
  try {
    result = environment.check(expression) as typeof result;
  } catch (error) {
    return (error as Error).message;
  }
  if (!result.valid) return firstLine(result.error?.message ?? 'is not a valid CEL expression');
  if (result.type !== 'bool' && result.type !== 'dyn') return `must evaluate to a bool, not ${result.type}`;
  return null;
}

export interface ExpressionScope {
  input: Record<string, unknown>;
  stages: Record<string, unknown>;
  state: Record<string, unknown>;
}

/** Evaluates a saved (already checked) expression; a non-bool result or an evaluation error is an Error. */
export function evaluateExpression(expression: string, scope: ExpressionScope): boolean {
  const value = environment.evaluate(expression, scope as never);
  if (typeof value !== 'boolean') throw new Error(`expression returned ${typeof value}, not a bool`);
  return value;
}

function firstLine(text: string): string {
  return text.split('\n')[0];
}
