// The seam between the run engine and the code that executes one attempt of one stage. The engine
// owns scheduling, retries, timeouts, leases and every database transition; an executor only does
// the work of its stage type and reports what happened.

export const STAGE_TYPES = ['command', 'await_approval', 'gate', 'eval', 'a2a'] as const;
export type StageType = (typeof STAGE_TYPES)[number];

export const GATE_CHECK_TYPES = ['eval_status', 'min_pass_rate', 'max_cost', 'regression', 'trust', 'cost', 'expression'] as const;
export type GateCheckType = (typeof GATE_CHECK_TYPES)[number];

export interface GateCheck {
  type: GateCheckType;
  expected: string;
  actual: string;
  passed: boolean;
  /** Present on failed checks. */
  message?: string;
}

/** The spec's `gate_result`, recorded on `gate` and `eval` stage records. */
export interface GateResult {
  passed: boolean;
  failed_checks: GateCheck[];
  passed_checks: GateCheck[];
  message: string;
  evaluated_at: string;
  score?: number;
  total_cost?: number;
  baseline_score?: number;
  baseline_count?: number;
  score_delta?: number;
  is_regression?: boolean;
  regression_pct?: number;
}

export const STATE_ENTRY_TYPES = ['string', 'json', 'file', 'patch', 'artifact'] as const;
export type StateEntryType = (typeof STATE_ENTRY_TYPES)[number];

/** The run's state as one stage sees it; writes are recorded with `created_by` = the stage name. */
export interface StageState {
  get(key: string): Promise<string | null>;
  put(key: string, value: unknown, options?: { type?: StateEntryType; mime_type?: string; ttl_seconds?: number }): Promise<void>;
}

export interface StageContext {
  accountId: string;
  pipelineId: string;
  runId: string;
  stageName: string;
  /** 1 for the first attempt. */
  attempt: number;
  /** The stage's `config` object as saved in the pipeline version (already validated). */
  config: Record<string, unknown>;
  /** Sandbox template for stages that create sandboxes: the stage's, else the pipeline defaults'. */
  template: string;
  /** The run's `env` overlaid with the stage's `env`. */
  env: Record<string, string>;
  /** Aborted when the attempt times out or the run is canceled; executors must stop promptly. */
  signal: AbortSignal;
  state: StageState;
  /** Appends to the attempt's log (served by the per-stage logs endpoint). */
  log(stream: 'stdout' | 'stderr', text: string): void;
  /**
   * Added by the engine branch (optional for callers, always provided by the engine): executors that
   * create sandboxes report each one at once, so the run's cost counts it and a worker that takes over
   * a lost attempt destroys it.
   */
  sandboxCreated?(sandboxId: string): Promise<void>;
  /** Added by the engine branch: the run's `repo`/`branch` input, for stages that clone it. */
  repo?: { url: string; branch: string | null } | null;
}

export interface StageOutcome {
  status: 'succeeded' | 'failed';
  exit_code?: number | null;
  /** Readable reason for a failure. */
  error?: string;
  gate_result?: GateResult;
  /** What this attempt cost beyond the compute of sandboxes it created (those are metered). */
  cost_usd?: number;
}

export type StageExecutor = (context: StageContext) => Promise<StageOutcome>;
