// paddock.evals: scenarios (a command and checks run in a sandbox), suites of them, runs and their results.
import type { Http } from './core/http.js';
import { segment } from './core/paths.js';
import type { BodyOf, Schemas } from './core/types.js';

export type EvalScenario = Schemas['EvalScenario'];
export type EvalSuite = Schemas['EvalSuite'];
export type EvalResult = Schemas['EvalResult'];
export type CreateScenarioParams = BodyOf<'/v1/evals/scenarios', 'post'>;
export type UpdateScenarioParams = BodyOf<'/v1/evals/scenarios/{id}', 'put'>;
export type CreateSuiteParams = BodyOf<'/v1/evals/suites', 'post'>;
export type UpdateSuiteParams = BodyOf<'/v1/evals/suites/{id}', 'put'>;
export type EvalPage = { limit?: number; offset?: number };

/** CRUD, run and results of one kind of eval definition (`scenarios` or `suites`). */
class EvalDefinitions<T, Create, Update> {
  constructor(
    private readonly http: Http,
    private readonly base: string,
  ) {}

  create(params: Create): Promise<T> {
    return this.http.request('POST', this.base, { body: params });
  }

  list(page: EvalPage = {}): Promise<T[]> {
    return this.http.request('GET', this.base, { query: page });
  }

  get(id: string): Promise<T> {
    return this.http.request('GET', `${this.base}/${segment(id)}`);
  }

  /** Changes the fields sent; the rest stays. */
  update(id: string, params: Update): Promise<T> {
    return this.http.request('PUT', `${this.base}/${segment(id)}`, { body: params });
  }

  delete(id: string): Promise<void> {
    return this.http.request('DELETE', `${this.base}/${segment(id)}`);
  }

  /** Runs it now (in sandboxes: needs a server with a runtime) and resolves to the recorded result. */
  run(id: string): Promise<EvalResult> {
    return this.http.request('POST', `${this.base}/${segment(id)}/run`, { timeoutMs: 0 });
  }

  /** Recorded results, newest first. */
  results(id: string, page: EvalPage = {}): Promise<EvalResult[]> {
    return this.http.request('GET', `${this.base}/${segment(id)}/results`, { query: page });
  }
}

export class Evals {
  /** `paddock.evals.scenarios.create/list/get/update/delete/run/results`. */
  readonly scenarios: EvalDefinitions<EvalScenario, CreateScenarioParams, UpdateScenarioParams>;
  /** `paddock.evals.suites.create/list/get/update/delete/run/results`. */
  readonly suites: EvalDefinitions<EvalSuite, CreateSuiteParams, UpdateSuiteParams>;

  constructor(http: Http) {
    this.scenarios = new EvalDefinitions(http, '/v1/evals/scenarios');
    this.suites = new EvalDefinitions(http, '/v1/evals/suites');
  }
}
