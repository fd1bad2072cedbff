// `gate` stages: every configured check is evaluated and reported in `gate_result`; the stage fails
// when any check fails (and with `fail_fast` the engine fails the run whatever `on_failure` says).
//   trust_above — the run's trust: the lowest trust score among the run's sessions (its own session and
//                 those of its stage sandboxes; 100 when none holds a finding); passes when ≥.
//   cost_below  — the run's cost so far: compute of its stage sandboxes plus the LLM cost of the run's
//                 sessions plus the cost stages reported; passes when < (runs/cost-and-trust.ts).
//   expression  — CEL over `input`, `stages` and `state` (see definition/expressions.ts); passes when true.
//   state_key   — passes when that state entry exists and holds `true` (string or JSON), or a JSON
//                 object whose `passed` is true (an eval result stored in state).
import { evaluateExpression, type ExpressionScope } from '../definition/expressions.js';
import type { GateConfig } from '../definition/types.js';
import type { GateCheck, GateResult, StageExecutor } from './contract.js';

export interface GateDependencies {
  trustOf(runId: string): Promise<{ score: number; sessions: number }>;
  costOf(runId: string): Promise<number>;
  scopeOf(runId: string): Promise<ExpressionScope>;
}

export function gateExecutor(deps: GateDependencies): StageExecutor {
  return async (context) => {
    // Validated against GateConfig when the pipeline was saved (definition/validate.ts).
    const config = context.config as GateConfig;
    const checks: GateCheck[] = [];
    const add = (check: Omit<GateCheck, 'message'>, message: string) => checks.push(check.passed ? check : { ...check, message });
    let totalCost: number | undefined;
    if (config.trust_above !== undefined) {
      const trust = await deps.trustOf(context.runId);
      add(
        { type: 'trust', expected: `>= ${config.trust_above}`, actual: String(trust.score), passed: trust.score >= config.trust_above },
        `trust score ${trust.score} is below ${config.trust_above} (lowest of ${trust.sessions} session(s))`,
      );
    }
    if (config.cost_below !== undefined) {
      totalCost = await deps.costOf(context.runId);
      add(
        { type: 'cost', expected: `< ${config.cost_below}`, actual: totalCost.toFixed(6), passed: totalCost < config.cost_below },
        `run cost $${totalCost.toFixed(6)} is not below $${config.cost_below}`,
      );
    }
    if (config.expression !== undefined || config.state_key !== undefined) {
      const scope = await deps.scopeOf(context.runId);
      if (config.expression !== undefined) {
        let passed = false;
        let actual: string;
        try {
          passed = evaluateExpression(config.expression, scope);
          actual = String(passed);
        } catch (error) {
          actual = `error: ${(error as Error).message}`;
        }
        add({ type: 'expression', expected: config.expression, actual, passed }, actual.startsWith('error') ? `expression could not be evaluated: ${actual.slice(7)}` : 'expression is false');
      }
      if (config.state_key !== undefined) {
        const key = config.state_key;
        const value = scope.state[key];
        const passed = value === true || value === 'true' || (typeof value === 'object' && value !== null && (value as { passed?: unknown }).passed === true);
        add(
          { type: 'expression', expected: `state["${key}"] is true`, actual: value === undefined ? 'missing' : typeof value === 'string' ? value : JSON.stringify(value), passed },
          value === undefined ? `state key ${key} is not set` : `state key ${key} does not hold true`,
        );
      }
    }
    const failed = checks.filter((check) => !check.passed);
    const result: GateResult = {
      passed: failed.length === 0,
      failed_checks: failed,
      passed_checks: checks.filter((check) => check.passed),
      message: failed.length === 0 ? `all ${checks.length} check(s) passed` : failed.map((check) => check.message).join('; '),
      evaluated_at: new Date().toISOString(),
      ...(totalCost !== undefined ? { total_cost: totalCost } : {}),
    };
    context.log('stdout', `${result.message}\n`);
    return { status: result.passed ? 'succeeded' : 'failed', gate_result: result, ...(result.passed ? {} : { error: `gate failed: ${result.message}` }) };
  };
}
