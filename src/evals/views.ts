// Turns scenario, suite and result rows into the shapes the API returns.
import type { ResultRow, ScenarioRow, SuiteRow } from './store.js';

export function scenarioView(row: ScenarioRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    template: row.template,
    command: row.command,
    env: JSON.parse(row.env) as Record<string, string>,
    network_mode: row.network_mode,
    timeout_seconds: Number(row.timeout_seconds),
    checks: JSON.parse(row.checks) as Record<string, unknown>[],
    pass_threshold: Number(row.pass_threshold),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function suiteView(row: SuiteRow) {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    scenario_ids: JSON.parse(row.scenario_ids) as string[],
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function resultView(row: ResultRow) {
  return {
    id: row.id,
    scenario_id: row.scenario_id,
    suite_id: row.suite_id,
    status: row.status,
    pass_rate: Number(row.pass_rate),
    score: Number(row.score),
    cost_usd: Number(row.cost_usd),
    source: row.source,
    pipeline_run_id: row.pipeline_run_id,
    stage_name: row.stage_name,
    duration_ms: Number(row.duration_ms),
    created_at: row.created_at,
    scenarios: JSON.parse(row.scenario_results) as unknown[],
  };
}
export type EvalResultView = ReturnType<typeof resultView>;
