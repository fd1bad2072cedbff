// paddock.pipelines: definitions (create, new versions, archive) and their runs (start, wait, approve, logs, state).
import type { Http } from '../core/http.js';
import { segment } from '../core/paths.js';
import { TimeoutError } from '../core/errors.js';
import { sleep } from '../core/http.js';
import type { BodyOf, QueryOf, ResponseOf } from '../core/types.js';

export type Pipeline = ResponseOf<'/v1/pipelines/{id}', 'get'>;
export type PipelineListItem = ResponseOf<'/v1/pipelines', 'get'>[number];
export type PipelineVersion = ResponseOf<'/v1/pipelines/{id}/versions/{version}', 'get'>;
export type CreatePipelineParams = BodyOf<'/v1/pipelines', 'post'>;
export type UpdatePipelineParams = BodyOf<'/v1/pipelines/{id}', 'put'>;
export type StartRunParams = NonNullable<BodyOf<'/v1/pipelines/{id}/runs', 'post'>>;
export type Run = ResponseOf<'/v1/pipelines/{id}/runs/{run_id}', 'get'>;
export type RunListItem = ResponseOf<'/v1/pipelines/{id}/runs', 'get'>[number];
export type StageRecord = Run['stages'][number];
export type StageLogs = ResponseOf<'/v1/pipelines/{id}/runs/{run_id}/stages/{stage}/logs', 'get'>;
export type RunEvents = ResponseOf<'/v1/pipelines/{id}/runs/{run_id}/events', 'get'>;
export type DecisionResult = ResponseOf<'/v1/pipelines/{id}/runs/{run_id}/approve', 'post'>;
export type StateEntry = ResponseOf<'/v1/pipelines/{id}/runs/{run_id}/state/{key}', 'get'>;
export type PutStateParams = BodyOf<'/v1/pipelines/{id}/runs/{run_id}/state/{key}', 'put'>;
export type PipelinePage = { limit?: number; offset?: number };
/** Names a run: a Run or RunListItem fits. */
export type RunRef = { pipeline_id: string; id: string };

/** Statuses a run does not leave. */
export const TERMINAL_RUN_STATUSES: readonly Run['status'][] = ['succeeded', 'failed', 'canceled'];

export interface WaitForRunOptions {
  /** Give up (TimeoutError) after this long; default 10 minutes. */
  timeoutMs?: number;
  /** Between polls; default 1 000. */
  pollMs?: number;
  /** Also resolve when the run pauses for an approval (status `paused`). */
  untilPaused?: boolean;
  signal?: AbortSignal;
}

export class Pipelines {
  constructor(private readonly http: Http) {}

  /** Saves version 1 of a definition (a DAG of stages); 400 names what is wrong with it. */
  create(params: CreatePipelineParams): Promise<Pipeline> {
    return this.http.request('POST', '/v1/pipelines', { body: params });
  }

  /** Saves `params` as the next version; runs already started keep theirs. */
  update(pipelineId: string, params: UpdatePipelineParams): Promise<Pipeline> {
    return this.http.request('PUT', `/v1/pipelines/${segment(pipelineId)}`, { body: params });
  }

  /** The pipeline at its current version. */
  get(pipelineId: string): Promise<Pipeline> {
    return this.http.request('GET', `/v1/pipelines/${segment(pipelineId)}`);
  }

  /** Newest first, one page (`limit` ≤ 100). */
  list(query: QueryOf<'/v1/pipelines', 'get'> = {}): Promise<PipelineListItem[]> {
    return this.http.request('GET', '/v1/pipelines', { query });
  }

  /** Soft delete: the pipeline becomes `archived`, its runs stay readable. */
  archive(pipelineId: string): Promise<void> {
    return this.http.request('DELETE', `/v1/pipelines/${segment(pipelineId)}`);
  }

  /** Every version, newest first. */
  versions(pipelineId: string): Promise<PipelineVersion[]> {
    return this.http.request('GET', `/v1/pipelines/${segment(pipelineId)}/versions`);
  }

  /** Starts a run of the current version (status `pending`). */
  run(pipelineId: string, params: StartRunParams = {}): Promise<Run> {
    return this.http.request('POST', `/v1/pipelines/${segment(pipelineId)}/runs`, { body: params });
  }

  /** Runs of a pipeline, newest first, one page. */
  runs(pipelineId: string, page: PipelinePage = {}): Promise<RunListItem[]> {
    return this.http.request('GET', `/v1/pipelines/${segment(pipelineId)}/runs`, { query: page });
  }

  /** A run with every stage record. */
  getRun(pipelineId: string, runId: string): Promise<Run> {
    return this.http.request('GET', runPath(pipelineId, runId));
  }

  /**
   * Polls the run until it succeeded, failed or was canceled (or paused, with `untilPaused`); TimeoutError
   * past `timeoutMs`. Takes the run (what `run()` answered: its `pipeline_id` and `id`) or both ids.
   */
  waitForRun(run: RunRef, options?: WaitForRunOptions): Promise<Run>;
  waitForRun(pipelineId: string, runId: string, options?: WaitForRunOptions): Promise<Run>;
  async waitForRun(first: RunRef | string, second?: string | WaitForRunOptions, third?: WaitForRunOptions): Promise<Run> {
    const [pipelineId, runId, options = {}] = typeof first === 'string' ? [first, second as string, third] : [first.pipeline_id, first.id, second as WaitForRunOptions | undefined];
    const timeoutMs = options.timeoutMs ?? 600_000;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const run = await this.getRun(pipelineId, runId);
      if (TERMINAL_RUN_STATUSES.includes(run.status) || (options.untilPaused && run.status === 'paused')) return run;
      const left = deadline - Date.now();
      if (left <= 0) throw new TimeoutError(`run ${runId} is still ${run.status} after ${timeoutMs} ms`);
      await sleep(Math.min(options.pollMs ?? 1000, left), options.signal);
    }
  }

  /** Stops a pending, running or paused run. */
  cancel(pipelineId: string, runId: string): Promise<void> {
    return this.http.request('POST', `${runPath(pipelineId, runId)}/cancel`);
  }

  /** Approves the stage waiting in `paused_approval`; the run resumes. */
  approve(pipelineId: string, runId: string, comment?: string): Promise<DecisionResult> {
    return this.http.request('POST', `${runPath(pipelineId, runId)}/approve`, { body: comment === undefined ? {} : { comment } });
  }

  /** Rejects the stage waiting in `paused_approval`; the run becomes `canceled`. */
  reject(pipelineId: string, runId: string, comment?: string): Promise<DecisionResult> {
    return this.http.request('POST', `${runPath(pipelineId, runId)}/reject`, { body: comment === undefined ? {} : { comment } });
  }

  /** The run's stage records. */
  stages(pipelineId: string, runId: string): Promise<StageRecord[]> {
    return this.http.request('GET', `${runPath(pipelineId, runId)}/stages`);
  }

  /** stdout/stderr of every attempt of a stage, or of one `attempt`. */
  logs(pipelineId: string, runId: string, stage: string, options: { attempt?: number } = {}): Promise<StageLogs> {
    return this.http.request('GET', `${runPath(pipelineId, runId)}/stages/${segment(stage)}/logs`, { query: options });
  }

  /** The run's lifecycle events in order; page with `after_seq`. */
  events(pipelineId: string, runId: string, query: { after_seq?: number; limit?: number } = {}): Promise<RunEvents> {
    return this.http.request('GET', `${runPath(pipelineId, runId)}/events`, { query });
  }

  /** The run's state: every entry, or one (`key`). */
  state(pipelineId: string, runId: string): Promise<StateEntry[]>;
  state(pipelineId: string, runId: string, key: string): Promise<StateEntry>;
  state(pipelineId: string, runId: string, key?: string): Promise<StateEntry[] | StateEntry> {
    const path = `${runPath(pipelineId, runId)}/state`;
    return this.http.request('GET', key === undefined ? path : `${path}/${segment(key)}`);
  }

  /** Creates or replaces a state entry. */
  setState(pipelineId: string, runId: string, key: string, params: PutStateParams): Promise<StateEntry> {
    return this.http.request('PUT', `${runPath(pipelineId, runId)}/state/${segment(key)}`, { body: params });
  }

  deleteState(pipelineId: string, runId: string, key: string): Promise<void> {
    return this.http.request('DELETE', `${runPath(pipelineId, runId)}/state/${segment(key)}`);
  }
}

const runPath = (pipelineId: string, runId: string) => `/v1/pipelines/${segment(pipelineId)}/runs/${segment(runId)}`;
