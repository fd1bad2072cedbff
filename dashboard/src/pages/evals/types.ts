// Shapes of the eval endpoints the pages read, from src/evals/schemas.ts.

export interface Scenario {
  id: string;
  name: string;
  description: string;
  template: string;
  command: string;
  env: Record<string, string>;
  network_mode: string;
  timeout_seconds: number;
  checks: Record<string, unknown>[];
  pass_threshold: number;
  created_at: string;
  updated_at: string;
}

export interface Suite {
  id: string;
  name: string;
  description: string;
  scenario_ids: string[];
  created_at: string;
  updated_at: string;
}

export interface CheckResult {
  type: string;
  weight: number;
  passed: boolean;
  expected: string;
  actual: string;
}

export interface ScenarioResult {
  scenario_id: string;
  name: string;
  status: 'passed' | 'failed' | 'errored';
  score: number;
  exit_code: number | null;
  timed_out: boolean;
  error: string | null;
  checks: CheckResult[];
  cost_usd: number;
  duration_ms: number;
  sandbox_id: string | null;
}

export interface EvalResult {
  id: string;
  scenario_id: string | null;
  suite_id: string | null;
  status: 'passed' | 'failed' | 'errored';
  pass_rate: number;
  score: number;
  cost_usd: number;
  source: 'api' | 'pipeline';
  pipeline_run_id: string | null;
  stage_name: string | null;
  duration_ms: number;
  created_at: string;
  scenarios: ScenarioResult[];
}
