// Eval scenario and suite rules: names unique per account, checks valid, suites made of the account's
// own scenarios, a scenario in use by a suite kept; lookups by id or name; runs through the runner.
import type { Kysely } from 'kysely';
import { isUniqueViolation } from '../core/db/database.js';
import type { Database } from '../core/db/schema.js';
import { Conflict, HttpError, Invalid, NotFound } from '../core/errors.js';
import { nowIso } from '../core/time.js';
import { newScenarioId, newSuiteId } from './ids.js';
import type { EvalRunner, ResolvedTarget, RunOptions } from './runner.js';
import type { CreateScenarioInput, CreateSuiteInput, UpdateScenarioInput, UpdateSuiteInput } from './schemas.js';
import * as store from './store.js';
import { validateChecks } from './validate-checks.js';
import { resultView, scenarioView, suiteView, type EvalResultView } from './views.js';

type Page = { limit: number; offset: number };

/** What an eval stage or a run request names: a scenario or a suite, by id or by name. */
export type EvalTarget = { scenarioId: string } | { scenarioName: string } | { suiteId: string } | { suiteName: string };

export class EvalService {
  constructor(
    private readonly db: Kysely<Database>,
    /** Null when the server has no sandbox runtime: definitions are served, runs are refused. */
    private readonly runner: EvalRunner | null,
  ) {}

  async createScenario(accountId: string, input: CreateScenarioInput) {
    const checks = validateChecks(input.checks as Record<string, unknown>[]);
    const now = nowIso();
    const row: store.ScenarioRow = {
      id: newScenarioId(),
      account_id: accountId,
      name: input.name,
      description: input.description ?? '',
      template: input.template,
      command: input.command,
      env: JSON.stringify(input.env ?? {}),
      network_mode: input.network_mode ?? 'none',
      timeout_seconds: input.timeout_seconds ?? 60,
      checks: JSON.stringify(checks),
      pass_threshold: input.pass_threshold ?? 1,
      created_at: now,
      updated_at: now,
    };
    await uniqueName(() => store.insertScenario(this.db, row), 'scenario', input.name);
    return scenarioView(row);
  }

  async updateScenario(accountId: string, id: string, input: UpdateScenarioInput) {
    const row = await this.scenario(accountId, id);
    const { checks, env, ...rest } = input;
    const changes = {
      ...rest,
      ...(checks ? { checks: JSON.stringify(validateChecks(checks as Record<string, unknown>[])) } : {}),
      ...(env ? { env: JSON.stringify(env) } : {}),
      updated_at: nowIso(),
    };
    await uniqueName(() => store.updateScenario(this.db, id, changes), 'scenario', input.name ?? row.name);
    return scenarioView({ ...row, ...changes });
  }

  async scenario(accountId: string, id: string): Promise<store.ScenarioRow> {
    const row = await store.findScenario(this.db, accountId, id);
    if (!row) throw new NotFound('scenario');
    return row;
  }

  async listScenarios(accountId: string, page: Page) {
    return (await store.listScenarios(this.db, accountId, page)).map(scenarioView);
  }

  async deleteScenario(accountId: string, id: string): Promise<void> {
    await this.scenario(accountId, id);
    const users = (await store.listSuites(this.db, accountId)).filter((suite) => (JSON.parse(suite.scenario_ids) as string[]).includes(id));
    if (users.length) throw new Conflict(`scenario ${id} is used by suite ${users.map((s) => s.name).join(', ')}; remove it from the suite first`);
    await store.deleteScenario(this.db, id);
  }

  async createSuite(accountId: string, input: CreateSuiteInput) {
    await this.requireScenarios(accountId, input.scenario_ids);
    const now = nowIso();
    const row: store.SuiteRow = {
      id: newSuiteId(),
      account_id: accountId,
      name: input.name,
      description: input.description ?? '',
      scenario_ids: JSON.stringify(input.scenario_ids),
      created_at: now,
      updated_at: now,
    };
    await uniqueName(() => store.insertSuite(this.db, row), 'suite', input.name);
    return suiteView(row);
  }

  async updateSuite(accountId: string, id: string, input: UpdateSuiteInput) {
    const row = await this.suite(accountId, id);
    if (input.scenario_ids) await this.requireScenarios(accountId, input.scenario_ids);
    const { scenario_ids, ...rest } = input;
    const changes = { ...rest, ...(scenario_ids ? { scenario_ids: JSON.stringify(scenario_ids) } : {}), updated_at: nowIso() };
    await uniqueName(() => store.updateSuite(this.db, id, changes), 'suite', input.name ?? row.name);
    return suiteView({ ...row, ...changes });
  }

  async suite(accountId: string, id: string): Promise<store.SuiteRow> {
    const row = await store.findSuite(this.db, accountId, id);
    if (!row) throw new NotFound('suite');
    return row;
  }

  async listSuites(accountId: string, page: Page) {
    return (await store.listSuites(this.db, accountId, page)).map(suiteView);
  }

  async deleteSuite(accountId: string, id: string): Promise<void> {
    await this.suite(accountId, id);
    await store.deleteSuite(this.db, id);
  }

  private async requireScenarios(accountId: string, ids: string[]): Promise<store.ScenarioRow[]> {
    const found = new Map((await store.findScenarios(this.db, accountId, ids)).map((row) => [row.id, row]));
    const missing = ids.findIndex((id) => !found.has(id));
    if (missing >= 0) throw new Invalid(`body.scenario_ids[${missing}]`, `names no scenario of this account (${ids[missing]})`);
    return ids.map((id) => found.get(id)!);
  }

  /** Finds what an eval stage names; null when it does not exist in the account. */
  async resolve(accountId: string, target: EvalTarget): Promise<ResolvedTarget | null> {
    if ('scenarioId' in target || 'scenarioName' in target) {
      const scenario = 'scenarioId' in target ? await store.findScenario(this.db, accountId, target.scenarioId) : await store.findScenarioByName(this.db, accountId, target.scenarioName);
      return scenario ? { kind: 'scenario', scenario } : null;
    }
    const suite = 'suiteId' in target ? await store.findSuite(this.db, accountId, target.suiteId) : await store.findSuiteByName(this.db, accountId, target.suiteName);
    if (!suite) return null;
    const ids = JSON.parse(suite.scenario_ids) as string[];
    const rows = new Map((await store.findScenarios(this.db, accountId, ids)).map((row) => [row.id, row]));
    return { kind: 'suite', suite, scenarios: ids.flatMap((id) => (rows.has(id) ? [rows.get(id)!] : [])) };
  }

  /** Scores of the newest `count` completed results of the target: the baseline of its next run. */
  async baselineScores(accountId: string, target: ResolvedTarget, count: number): Promise<number[]> {
    return store.recentScores(this.db, accountId, subjectOf(target), count);
  }

  async listResults(accountId: string, target: ResolvedTarget, page: Page) {
    return (await store.listResults(this.db, accountId, subjectOf(target), page)).map(resultView);
  }

  /** Destroys eval sandboxes of runs a previous process did not finish; called when the app starts. */
  async reapInterrupted(): Promise<number> {
    return this.runner ? this.runner.reapInterrupted() : 0;
  }

  /** Runs the target and records its result; null when `options.signal` stopped the run (nothing recorded). */
  async run(accountId: string, target: ResolvedTarget, options: RunOptions): Promise<EvalResultView | null> {
    if (!this.runner) throw new HttpError(503, 'this server has no sandbox runtime, so evals cannot run', 'runtime_unavailable');
    return this.runner.run(accountId, target, options);
  }
}

export function subjectOf(target: ResolvedTarget): store.ResultSubject {
  return target.kind === 'scenario' ? { scenarioId: target.scenario.id } : { suiteId: target.suite.id };
}

async function uniqueName(write: () => Promise<void>, what: string, name: string): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (isUniqueViolation(error)) throw new Conflict(`a ${what} named ${name} already exists`, 'already_exists');
    throw error;
  }
}
