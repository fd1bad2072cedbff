// What every run transition does besides its own status write, in the caller's transaction: emit the
// timeline event (the run's timeline, its session, and the published event for subscribers), decide
// the stages a change made ready, and end the run. Used only by Transitions (transitions.ts).
import type { Tx } from '../../core/db/handles.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../core/db/schema.js';
import type { EventPublisher } from '../../core/events/published.js';
import { nowIso } from '../../core/time.js';
import type { PipelineDefinition } from '../definition/types.js';
import * as pipelineStore from '../store.js';
import { parseVersion } from '../service.js';
import * as store from '../runs/store.js';
import type { StateService } from '../state/service.js';
import { effectiveStage, finalRunStatus, isTerminal, readiness, type StageSnapshot } from './dag.js';
import { publishedPipelineEvent } from './published-events.js';
import type { RunObserver, RunStageCounts } from './run-observer.js';
import * as stateStore from '../state/store.js';

/** The sessions feature: each run's session, written inside the transitions' transactions. */
export interface RunSessions {
  openRunSession(trx: Tx, run: { accountId: string; runId: string; sessionId: string }, now: string): Promise<void>;
  recordRunEvent(trx: Tx, runId: string, event: { type: string; stage: string | null; data: Record<string, unknown>; at: string }): Promise<void>;
}

export class RunEffects {
  private readonly definitions = new Map<string, PipelineDefinition>();

  constructor(
    private readonly state: StateService,
    private readonly sessions: RunSessions,
    private readonly events: EventPublisher,
    private readonly observers: readonly RunObserver[] = [],
  ) {}

  /** A lifecycle event: into the run's timeline, its session, (the spec's types) to subscribers and to every observer, in the caller's transaction. */
  async emit(trx: Tx, run: store.RunRow, type: string, stage: string | null, data: Record<string, unknown>, at: string): Promise<void> {
    await store.appendEvent(trx, run, type, stage, data, at);
    await this.sessions.recordRunEvent(trx, run.id, { type, stage, data, at });
    const published = publishedPipelineEvent(run, type, stage, data, at);
    if (published) await this.events.publish(trx, published);
    if (this.observers.length === 0) return;
    const stages = async () => stageCounts(await store.stagesOf(trx, run.id));
    const state = async () =>
      (await stateStore.listEntries(trx, run.id, nowIso())).map(({ key, value, type, mime_type, size_bytes, created_at }) => ({ key, value, type, mime_type, size_bytes, created_at }));
    const event = { runId: run.id, accountId: run.account_id, sessionId: run.session_id, runStatus: run.status, type, stage, data, at, stages, state };
    for (const observer of this.observers) await observer.observe(trx, event);
  }

  /** Definitions are immutable per version, so they are cached forever. */
  async definition(db: Kysely<Database>, pipelineId: string, version: number): Promise<PipelineDefinition> {
    const key = `${pipelineId}:${version}`;
    let definition = this.definitions.get(key);
    if (!definition) {
      definition = parseVersion((await pipelineStore.findVersion(db, pipelineId, version))!);
      this.definitions.set(key, definition);
    }
    return definition;
  }

  /**
   * Decides every waiting stage whose dependencies are finished (start or skip, repeatedly, since a
   * skip can finish another stage's dependencies), then ends the run when nothing is left.
   */
  async advance(trx: Tx, run: store.RunRow): Promise<void> {
    if (!['pending', 'running', 'paused'].includes(run.status)) return;
    const definition = await this.definition(trx, run.pipeline_id, run.version);
    const byDefinition = new Map(definition.stages.map((stage) => [stage.name, stage]));
    const rows = await store.stagesOf(trx, run.id);
    const byName = new Map<string, StageSnapshot>(rows.map((row) => [row.name, row]));
    let scope: Awaited<ReturnType<typeof this.scope>> | null = null;
    const now = nowIso();
    for (let changed = true; changed;) {
      changed = false;
      for (const row of rows.filter((r) => r.status === 'waiting')) {
        if (!scope) scope = await this.scope(trx, run, rows);
        const result = readiness(byDefinition.get(row.name)!, byName, () => ({ ...scope!, stages: stageScope(rows) }));
        if (result.decision === 'wait') continue;
        changed = true;
        if (result.decision === 'start') {
          row.status = 'pending';
          await store.updateStage(trx, row.id, { status: 'pending', next_attempt_at: now, updated_at: now });
        } else {
          Object.assign(row, { status: 'skipped', error: result.reason, completed_at: now });
          await store.updateStage(trx, row.id, { status: 'skipped', error: result.reason, completed_at: now, updated_at: now });
          await this.emit(trx, run, 'pipeline.stage.skipped', row.name, { reason: result.reason }, now);
        }
      }
    }
    const final = finalRunStatus(
      rows.map((row) => ({ status: row.status, failedRun: row.status === 'failed' && effectiveStage(byDefinition.get(row.name)!, definition.defaults).onFailure === 'stop' })),
    );
    if (final) await this.finishRun(trx, run, final, final === 'failed' ? 'a stage failed' : null, now);
  }

  /** What CEL sees for a run now (gates evaluate their expression with it). */
  async scope(db: Kysely<Database>, run: store.RunRow, rows: store.RunStageRow[]) {
    const input = JSON.parse(run.input);
    return { input: { ...input, trigger: run.trigger }, stages: stageScope(rows), state: await this.state.values(run.id, db) };
  }

  async finishRun(trx: Tx, run: store.RunRow, status: 'succeeded' | 'failed' | 'canceled', error: string | null, now: string): Promise<void> {
    run.status = status;
    await store.updateRun(trx, run.id, { status, error, completed_at: now, updated_at: now });
    const type = status === 'succeeded' ? 'pipeline.run.completed' : status === 'failed' ? 'pipeline.run.failed' : 'pipeline.run.canceled';
    await this.emit(trx, run, type, null, { status, ...(error ? { error } : {}), duration_ms: run.started_at ? Date.parse(now) - Date.parse(run.started_at) : 0 }, now);
  }

  /** Marks every unfinished stage canceled (running ones stop at their worker's next heartbeat). */
  async cancelRemaining(trx: Tx, runId: string, now: string): Promise<void> {
    await trx
      .updateTable('pipeline_run_stages')
      .set({ status: 'canceled', completed_at: now, updated_at: now, lease_owner: null, lease_expires_at: null })
      .where('run_id', '=', runId)
      .where('status', 'not in', ['succeeded', 'failed', 'skipped', 'canceled'])
      .execute();
  }
}

function stageCounts(rows: store.RunStageRow[]): RunStageCounts {
  return {
    total: rows.length,
    finished: rows.filter((row) => isTerminal(row.status)).length,
    current: rows.filter((row) => row.status === 'running' || row.status === 'paused_approval').map((row) => row.name),
    awaiting: rows.filter((row) => row.status === 'paused_approval').map((row) => row.name),
  };
}

function stageScope(rows: store.RunStageRow[]): Record<string, unknown> {
  const stages: Record<string, unknown> = {};
  for (const row of rows) if (isTerminal(row.status)) stages[row.name] = { status: row.status, exit_code: row.exit_code ?? -1, attempt: row.attempt };
  return stages;
}
