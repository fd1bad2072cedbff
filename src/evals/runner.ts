// Runs eval scenarios: each in a fresh sandbox through the sandbox service (create with the scenario's
// template, exec its command with its timeout, destroy), scores the checks, and records the run's
// result. Suites run their scenarios one after another, so a run never holds more than one sandbox.
import type { Kysely } from 'kysely';
import type { Plan } from '../config.js';
import type { Principal } from '../core/access.js';
import type { Database } from '../core/db/schema.js';
import { NotFound } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { nowIso } from '../core/time.js';
import type { SandboxPlace } from '../sandboxes/directory.js';
import type { SandboxService } from '../sandboxes/service.js';
import { scoreScenario, type Check, type CheckOutcome } from './checks.js';
import * as store from './store.js';
import { summarizeRun, type EvalStatus } from './verdict.js';
import { resultView, type EvalResultView } from './views.js';
import type { Logger } from '../core/logging.js';

export interface EvalRunnerDeps {
  db: Kysely<Database>;
  sandboxes: SandboxService;
  /** Where sandboxes run (the sandbox directory answers): another server's eval sandboxes are its own business. */
  placesOf(sandboxIds: readonly string[]): Promise<Map<string, Pick<SandboxPlace, 'hostId'>>>;
  planOf(accountId: string): Promise<Plan>;
  /** What the given sandboxes cost in USD: metered compute plus the LLM spend of their sessions. */
  costOfSandboxes(sandboxIds: string[]): Promise<number>;
  log: Logger;
}

/** A scenario, or a suite with its scenarios, as read for one run. */
export type ResolvedTarget = { kind: 'scenario'; scenario: store.ScenarioRow } | { kind: 'suite'; suite: store.SuiteRow; scenarios: store.ScenarioRow[] };

export interface RunOptions {
  signal?: AbortSignal;
  /** Stop starting scenarios once the run has cost more than this. */
  maxCostUsd?: number;
  source: 'api' | 'pipeline';
  pipelineRunId?: string;
  stageName?: string;
}

export interface ScenarioResult {
  scenario_id: string;
  name: string;
  status: EvalStatus;
  score: number;
  exit_code: number | null;
  timed_out: boolean;
  error: string | null;
  checks: CheckOutcome[];
  cost_usd: number;
  duration_ms: number;
  sandbox_id: string | null;
}

const SANDBOX_SIZE = { cpus: 1, memory_mb: 512, disk_gb: 1 } as const;

function errored(scenario: store.ScenarioRow, error: string, extra: Partial<ScenarioResult> = {}): ScenarioResult {
  return { scenario_id: scenario.id, name: scenario.name, status: 'errored', score: 0, exit_code: null, timed_out: false, error, checks: [], cost_usd: 0, duration_ms: 0, sandbox_id: null, ...extra };
}

export class EvalRunner {
  constructor(private readonly deps: EvalRunnerDeps) {}

  async run(accountId: string, target: ResolvedTarget, options: RunOptions): Promise<EvalResultView | null> {
    const started = Date.now();
    const principal: Principal = { accountId, plan: await this.deps.planOf(accountId), scope: 'full', keyId: null };
    const scenarios = target.kind === 'scenario' ? [target.scenario] : target.scenarios;
    const results: ScenarioResult[] = [];
    let spentUsd = 0;
    for (const scenario of scenarios) {
      if (options.signal?.aborted) return null;
      if (options.maxCostUsd !== undefined && spentUsd > options.maxCostUsd) {
        results.push(errored(scenario, `not run: the eval run already cost ${spentUsd} USD, more than max_cost_usd ${options.maxCostUsd}`));
        continue;
      }
      const result = await this.runScenario(principal, scenario, options.signal);
      if (options.signal?.aborted) return null;
      spentUsd += result.cost_usd;
      results.push(result);
    }
    const summary = summarizeRun(results);
    const row: store.ResultRow = {
      id: newId('evr'),
      account_id: accountId,
      scenario_id: target.kind === 'scenario' ? target.scenario.id : null,
      suite_id: target.kind === 'suite' ? target.suite.id : null,
      ...summary,
      scenario_results: JSON.stringify(results),
      source: options.source,
      pipeline_run_id: options.pipelineRunId ?? null,
      stage_name: options.stageName ?? null,
      duration_ms: Date.now() - started,
      created_at: nowIso(),
    };
    await store.insertResult(this.deps.db, row);
    return resultView(row);
  }

  private async runScenario(principal: Principal, scenario: store.ScenarioRow, signal?: AbortSignal): Promise<ScenarioResult> {
    const started = Date.now();
    let sandboxId: string;
    try {
      const created = await this.deps.sandboxes.create(
        principal,
        {
          template: scenario.template as never,
          ...SANDBOX_SIZE,
          network_mode: scenario.network_mode as 'none' | 'full',
          env: JSON.parse(scenario.env),
        },
        { confidential: true },
      );
      sandboxId = created.id;
      await store.holdSandbox(this.deps.db, { sandbox_id: sandboxId, account_id: principal.accountId, created_at: nowIso() });
    } catch (error) {
      return errored(scenario, `the scenario sandbox could not be created: ${(error as Error).message}`, { duration_ms: Date.now() - started });
    }
    let result: ScenarioResult;
    try {
      result = await this.execAndScore(principal.accountId, sandboxId, scenario, started, signal);
    } finally {
      await this.release(principal.accountId, sandboxId);
    }
    result.cost_usd = await this.deps.costOfSandboxes([sandboxId]);
    return result;
  }

  private async release(accountId: string, sandboxId: string): Promise<void> {
    try {
      await this.deps.sandboxes.destroy(accountId, sandboxId);
      await store.releaseSandbox(this.deps.db, sandboxId);
    } catch (error) {
      // A sandbox that no longer exists needs no destroying.
      if (error instanceof NotFound) await store.releaseSandbox(this.deps.db, sandboxId);
      else this.deps.log.warn({ err: error, sandbox_id: sandboxId }, 'destroying an eval sandbox failed');
    }
  }

  /** At start: eval sandboxes still held belong to runs the previous process did not finish; destroy them. */
  async reapInterrupted(): Promise<number> {
    const rows = await store.heldSandboxes(this.deps.db);
    const places = await this.deps.placesOf(rows.map((row) => row.sandbox_id));
    const hostId = this.deps.sandboxes.hostId;
    const held = rows.filter((row) => {
      const place = places.get(row.sandbox_id);
      return !place || place.hostId === null || place.hostId === hostId;
    });
    for (const row of held) await this.release(row.account_id, row.sandbox_id);
    return held.length;
  }

  private async execAndScore(accountId: string, sandboxId: string, scenario: store.ScenarioRow, started: number, signal?: AbortSignal): Promise<ScenarioResult> {
    // The signal kills the command, which is how a stopped run stops promptly.
    const outcome = await this.deps.sandboxes.exec(accountId, sandboxId, { command: scenario.command, timeout: Number(scenario.timeout_seconds) }, undefined, signal);
    if (outcome.error) return errored(scenario, `the command could not run: ${outcome.error}`, { sandbox_id: sandboxId, duration_ms: Date.now() - started });
    const scored = scoreScenario(JSON.parse(scenario.checks) as Check[], { exitCode: outcome.exit_code, stdout: outcome.stdout, stderr: outcome.stderr }, Number(scenario.pass_threshold));
    return {
      scenario_id: scenario.id,
      name: scenario.name,
      status: scored.passed ? 'passed' : 'failed',
      score: scored.score,
      exit_code: outcome.exit_code,
      timed_out: outcome.timed_out,
      error: null,
      checks: scored.checks,
      cost_usd: 0,
      duration_ms: Date.now() - started,
      sandbox_id: sandboxId,
    };
  }
}
