// Runs as users see them: start, read, cancel, approve or reject, per-stage logs, the timeline, and
// the run's state. Every status change goes through the engine's Transitions.
import type { Kysely } from 'kysely';
import type { Principal } from '../../core/access.js';
import type { Database } from '../../core/db/schema.js';
import { Conflict, Invalid, NotFound } from '../../core/errors.js';
import type { InitialStateEntry, Transitions } from '../engine/transitions.js';
import type { Tx } from '../../core/db/handles.js';
import type { PipelineService } from '../service.js';
import type { PutStateInput, StateService } from '../state/service.js';
import * as store from './store.js';
import { attemptView, runListItem, runView, stageView } from './views.js';

export interface StartRunInput {
  trigger?: string;
  env?: Record<string, string>;
  repo?: string;
  branch?: string;
}

/** What another feature starting a run (agent delegation) adds to it. */
export interface RunExtras {
  /** Replaces the pipeline's default template for its stages that name none (recorded in the run's `input`). */
  template?: string | null;
  /** State entries written with the run (the task's input). */
  initialState?: InitialStateEntry[];
  /** Writes the caller's own row for the run in the run's creation transaction. */
  inside?: (trx: Tx, run: store.RunRow) => Promise<void>;
  /** When stages of several runs wait for a worker, higher priorities are claimed first (default 0). */
  priority?: number;
}

export interface RunEvents {
  /** The engine may have work: a run started or an approval arrived. */
  wake(): void;
  /** A run was canceled: stop this process's attempts of it now. */
  abortRun(runId: string): void;
}

export class RunService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly pipelines: PipelineService,
    private readonly transitions: Transitions,
    private readonly state: StateService,
    private readonly engine: RunEvents,
  ) {}

  async start(accountId: string, pipelineId: string, input: StartRunInput, extras: RunExtras = {}) {
    const pipeline = await this.pipelines.getRow(accountId, pipelineId);
    if (pipeline.status === 'archived') throw new Conflict('the pipeline is archived: runs cannot be started');
    if (input.branch !== undefined && input.repo === undefined) throw new Invalid('body.branch', 'needs body.repo');
    if (input.repo !== undefined) {
      let url: URL | null = null;
      try {
        url = new URL(input.repo);
      } catch {}
      if (!url || url.protocol !== 'https:') throw new Invalid('body.repo', 'must be an https URL');
      // Stage sandboxes show their repo to every key that can read them; credentials do not belong in it.
      if (url.username || url.password) throw new Invalid('body.repo', 'must not carry credentials (user:token@): a stage sandbox shows its repo URL to every key that can read it');
    }
    const runInput = { env: input.env ?? {}, repo: input.repo ?? null, branch: input.branch ?? null, ...(extras.template ? { template: extras.template } : {}) };
    const run = await this.transitions.createRun({
      accountId,
      pipeline,
      trigger: input.trigger ?? 'api',
      runInput,
      initialState: extras.initialState,
      inside: extras.inside,
      priority: extras.priority,
    });
    // Read before waking the worker: the answer is the run as created (`pending`), as the spec shows it.
    const view = runView(run, await store.stagesOf(this.db, run.id));
    this.engine.wake();
    return view;
  }

  async list(accountId: string, pipelineId: string, page: { limit: number; offset: number }) {
    await this.pipelines.getRow(accountId, pipelineId);
    return (await store.listRuns(this.db, pipelineId, page)).map(runListItem);
  }

  async getRow(accountId: string, pipelineId: string, runId: string): Promise<store.RunRow> {
    const run = await store.findRun(this.db, accountId, pipelineId, runId);
    if (!run) throw new NotFound('run');
    return run;
  }

  async get(accountId: string, pipelineId: string, runId: string) {
    const run = await this.getRow(accountId, pipelineId, runId);
    return runView(run, await store.stagesOf(this.db, run.id));
  }

  async stages(accountId: string, pipelineId: string, runId: string) {
    const run = await this.getRow(accountId, pipelineId, runId);
    return (await store.stagesOf(this.db, run.id)).map(stageView);
  }

  async logs(accountId: string, pipelineId: string, runId: string, stageName: string, attempt?: number) {
    const run = await this.getRow(accountId, pipelineId, runId);
    const stage = (await store.stagesOf(this.db, run.id)).find((row) => row.name === stageName);
    if (!stage) throw new NotFound(`stage "${stageName}" of the run`);
    let attempts = await store.attemptsOf(this.db, stage.id);
    if (attempt !== undefined) {
      attempts = attempts.filter((row) => row.attempt === attempt);
      if (attempts.length === 0) throw new NotFound(`attempt ${attempt} of stage "${stageName}"`);
    }
    return { stage: stageName, status: stage.status, attempts: attempts.map(attemptView) };
  }

  async timeline(accountId: string, pipelineId: string, runId: string, afterSequence: number, limit: number) {
    const run = await this.getRow(accountId, pipelineId, runId);
    const rows = await store.eventsOf(this.db, run.id, afterSequence, limit);
    return {
      run_id: run.id,
      events: rows.map((row) => ({ sequence: row.sequence, type: row.type, stage: row.stage, data: JSON.parse(row.data), timestamp: row.created_at })),
      next_sequence: rows.length ? rows[rows.length - 1].sequence : afterSequence,
      has_more: rows.length === limit && rows[rows.length - 1].sequence < run.event_count,
    };
  }

  async cancel(accountId: string, pipelineId: string, runId: string): Promise<void> {
    const run = await this.getRow(accountId, pipelineId, runId);
    if (!(await this.transitions.cancelRun(run.id, 'canceled through the API'))) throw new Conflict(`the run already ended (${run.status})`);
    this.engine.abortRun(run.id);
  }

  async decide(principal: Principal, pipelineId: string, runId: string, decision: 'approve' | 'reject', comment: string | null) {
    const run = await this.getRow(principal.accountId, pipelineId, runId);
    const by = principal.keyId ? `api_key:${principal.keyId}` : `account:${principal.accountId}`;
    const stage = await this.transitions.decide(run.id, { decision, by, comment });
    this.engine.wake();
    return { run_id: run.id, stage: stageView(stage) };
  }

  /** Decides the run's waiting approval on another feature's behalf (`by` names it), writing `state` and whatever `inside` writes in the decision's transaction; 409 when nothing waits. */
  async answer(runId: string, answer: { decision: 'approve' | 'reject'; by: string; comment: string | null; state?: InitialStateEntry[]; inside?: (trx: Tx) => Promise<void> }) {
    await this.transitions.decide(runId, { decision: answer.decision, by: answer.by, comment: answer.comment }, async (trx) => {
      for (const entry of answer.state ?? []) await this.state.putInside(trx, runId, entry.key, entry, answer.by);
      await answer.inside?.(trx);
    });
    this.engine.wake();
  }

  /** Cancels the run with `reason` as its error; false when it had already ended. */
  async stop(runId: string, reason: string): Promise<boolean> {
    const stopped = await this.transitions.cancelRun(runId, reason);
    if (stopped) this.engine.abortRun(runId);
    return stopped;
  }

  /** Writes a state entry of the run (created_by `by`). */
  async putState(runId: string, entry: InitialStateEntry, by: string): Promise<void> {
    await this.state.put(runId, entry.key, entry, by);
  }

  /** A state entry of the run, or null (missing or expired). */
  async stateEntry(runId: string, key: string) {
    return this.state.get(runId, key).catch((error) => {
      if (error instanceof NotFound) return null;
      throw error;
    });
  }

  async stateList(accountId: string, pipelineId: string, runId: string) {
    return this.state.list((await this.getRow(accountId, pipelineId, runId)).id);
  }

  async stateGet(accountId: string, pipelineId: string, runId: string, key: string) {
    return this.state.get((await this.getRow(accountId, pipelineId, runId)).id, key);
  }

  async statePut(accountId: string, pipelineId: string, runId: string, key: string, input: PutStateInput) {
    return this.state.put((await this.getRow(accountId, pipelineId, runId)).id, key, input, input.created_by ?? 'api');
  }

  async stateDelete(accountId: string, pipelineId: string, runId: string, key: string) {
    return this.state.delete((await this.getRow(accountId, pipelineId, runId)).id, key);
  }
}
