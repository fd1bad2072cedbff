// A run's creation: the run row, whatever the caller writes with it (`inside`: another feature's row
// for the run), its initial state entries, its session and stage rows, and its first event, in the
// caller's transaction. Transitions.createRun opens that transaction.
import type { Tx } from '../../core/db/handles.js';
import { newId } from '../../core/ids.js';
import { nowIso } from '../../core/time.js';
import type * as pipelineStore from '../store.js';
import type * as store from '../runs/store.js';
import type { StateService } from '../state/service.js';
import type { RunEffects, RunSessions } from './run-effects.js';

/** A state entry written with the run, in its creation transaction. */
export interface InitialStateEntry {
  key: string;
  value: unknown;
  type?: 'string' | 'json';
}

export interface NewRun {
  accountId: string;
  pipeline: pipelineStore.PipelineRow;
  trigger: string;
  runInput: Record<string, unknown>;
  initialState?: InitialStateEntry[];
  inside?: (trx: Tx, run: store.RunRow) => Promise<void>;
  /** Orders stage claims, higher first (default 0). */
  priority?: number;
}

export async function insertRun(trx: Tx, effects: RunEffects, state: StateService, sessions: RunSessions, input: NewRun): Promise<store.RunRow> {
  const definition = await effects.definition(trx, input.pipeline.id, input.pipeline.version);
  const now = nowIso();
  const run: store.RunRow = {
    id: newId('run'),
    account_id: input.accountId,
    pipeline_id: input.pipeline.id,
    pipeline_name: input.pipeline.name,
    version: input.pipeline.version,
    status: 'pending',
    trigger: input.trigger,
    input: JSON.stringify(input.runInput),
    error: null,
    event_count: 0,
    created_at: now,
    started_at: null,
    completed_at: null,
    updated_at: now,
    session_id: newId('ses'),
    priority: input.priority ?? 0,
  };
  await trx.insertInto('pipeline_runs').values(run).execute();
  await input.inside?.(trx, run);
  for (const entry of input.initialState ?? []) await state.putInside(trx, run.id, entry.key, entry, 'api');
  await sessions.openRunSession(trx, { accountId: run.account_id, runId: run.id, sessionId: run.session_id! }, now);
  await trx
    .insertInto('pipeline_run_stages')
    .values(
      definition.stages.map((stage, position) => ({
        id: newId('rst'),
        run_id: run.id,
        position,
        name: stage.name,
        type: stage.type,
        status: 'waiting' as const,
        attempt: 0,
        failures: 0,
        cost_usd: 0,
        updated_at: now,
      })),
    )
    .execute();
  await effects.emit(trx, run, 'pipeline.run.created', null, { pipeline_id: run.pipeline_id, version: run.version, trigger: run.trigger }, now);
  await effects.advance(trx, run);
  return run;
}
