// Follows the runs behind tasks (a pipelines RunObserver): each run event, inside its transition's
// transaction, moves the task's status, progress, output and artifacts along (see the mapping below)
// through the TaskLog. Runs without a task are ignored.
import { afterCommit } from '../../core/db/after-commit.js';
import type { Tx } from '../../core/db/handles.js';
import { newId } from '../../core/ids.js';
import type { ObservedRunEvent, ObservedStateEntry, RunObserver, RunStageCounts } from '../../pipelines/engine/run-observer.js';
import type { TaskProgress } from '../contract.js';
import * as store from './store.js';
import type { TaskLog, TaskUpdate } from './task-log.js';

/** The run state key whose value is the task's `output` when its run succeeds (JSON entries parsed). */
export const OUTPUT_STATE_KEY = 'task_output';
/** Run state entry types that become task artifacts. */
const ARTIFACT_TYPES = ['file', 'artifact'];
/** The task's status_message and error when its budget stopped it. */
export const BUDGET_EXCEEDED = 'budget_exceeded';

export class TaskFollower implements RunObserver {
  /** Called after the commit of every event of a task's run (the budget check). */
  afterEvent: (task: store.TaskRow) => void = () => {};

  constructor(private readonly log: TaskLog) {}

  async observe(trx: Tx, event: ObservedRunEvent): Promise<void> {
    const task = await store.taskOfRun(trx, event.runId);
    if (!task) return;
    const update = await this.updateFor(trx, task, event);
    if (update) await this.log.apply(trx, task, update, event.at);
    // The budget check reads costs outside the transition's transaction, once it committed.
    afterCommit(trx, () => this.afterEvent(task));
  }

  private async updateFor(trx: Tx, task: store.TaskRow, event: ObservedRunEvent): Promise<TaskUpdate | null> {
    const ended = ['completed', 'failed', 'canceled'].includes(task.status);
    if (ended) return null;
    switch (event.type) {
      case 'pipeline.run.started':
        return task.status === 'pending' ? { status: { status: 'running', message: null } } : null;
      case 'pipeline.stage.started':
      case 'pipeline.stage.completed': {
        const progress = progressOf(event, await event.stages());
        const events: TaskUpdate['events'] = [{ kind: 'progress', data: { ...progress } }];
        if (event.type === 'pipeline.stage.completed') events.push(...(await this.newArtifacts(trx, task, event)));
        return { changes: { progress: JSON.stringify(progress) }, events };
      }
      case 'pipeline.stage.failed':
        return { events: await this.newArtifacts(trx, task, event) };
      case 'pipeline.stage.paused_approval': {
        const message = typeof event.data.message === 'string' && event.data.message ? event.data.message : `stage ${event.stage} is waiting for input`;
        const parts = [{ type: 'text' as const, text: message }];
        await store.insertMessage(trx, { id: newId('msg'), task_id: task.id, role: 'agent', parts: JSON.stringify(parts), created_at: event.at });
        return {
          changes: { progress: JSON.stringify(progressOf(event, await event.stages())) },
          status: { status: 'input_needed', message },
          events: [{ kind: 'message', data: { role: 'agent', parts } }],
        };
      }
      case 'pipeline.stage.approved':
      case 'pipeline.stage.approval_auto_decided':
        if (event.data.decision !== 'approve' || task.status !== 'input_needed' || (await event.stages()).awaiting.length > 0) return null;
        return { status: { status: 'running', message: null } };
      case 'pipeline.run.completed': {
        const entries = await event.state();
        const output = outputOf(entries);
        return {
          changes: { output: JSON.stringify(output), progress: JSON.stringify({ ...progressOf(event, await event.stages()), percentage: 100 }) },
          status: { status: 'completed', message: null },
          events: [...(await this.newArtifacts(trx, task, event, entries)), { kind: 'complete', data: { status: 'completed', output } }],
        };
      }
      case 'pipeline.run.failed':
      case 'pipeline.run.canceled': {
        const reason = typeof event.data.error === 'string' ? event.data.error : null;
        const overBudget = task.error === BUDGET_EXCEEDED;
        const status = overBudget || event.type === 'pipeline.run.failed' ? 'failed' : 'canceled';
        const message = overBudget ? `${BUDGET_EXCEEDED}: the task's cost reached the agent's max_cost_per_task (${task.max_cost_usd} USD)` : reason;
        return {
          changes: { error: overBudget ? BUDGET_EXCEEDED : (reason ?? status) },
          status: { status, message },
          events: [...(await this.newArtifacts(trx, task, event)), { kind: 'error', data: { status, error: overBudget ? BUDGET_EXCEEDED : (message ?? status) } }],
        };
      }
      default:
        return null;
    }
  }

  /** Run state entries of type file/artifact not yet recorded: each becomes an artifact (and an `artifact` event). */
  private async newArtifacts(trx: Tx, task: store.TaskRow, event: ObservedRunEvent, entries?: ObservedStateEntry[]): Promise<NonNullable<TaskUpdate['events']>> {
    const candidates = (entries ?? (await event.state())).filter((entry) => ARTIFACT_TYPES.includes(entry.type));
    if (candidates.length === 0) return [];
    const known = new Set((await store.artifactsOf(trx, [task.id])).map((row) => row.state_key));
    const events: NonNullable<TaskUpdate['events']> = [];
    for (const entry of candidates) {
      if (known.has(entry.key)) continue;
      const row = { id: newId('art'), task_id: task.id, name: entry.key, mime_type: entry.mime_type ?? 'application/octet-stream', state_key: entry.key, created_at: event.at };
      await store.insertArtifact(trx, row);
      events.push({ kind: 'artifact', data: { id: row.id, name: row.name, mime_type: row.mime_type } });
    }
    return events;
  }
}

function progressOf(event: ObservedRunEvent, counts: RunStageCounts): TaskProgress {
  const { total, finished, current } = counts;
  const verb = event.type.endsWith('started') ? 'started' : event.type.endsWith('paused_approval') ? 'is waiting for input' : 'completed';
  return {
    percentage: total === 0 ? 100 : Math.floor((finished / total) * 100),
    current_step: current[0] ?? event.stage,
    message: event.stage ? `stage ${event.stage} ${verb} (${finished} of ${total} stages finished)` : `${finished} of ${total} stages finished`,
  };
}

function outputOf(entries: ObservedStateEntry[]): unknown {
  const entry = entries.find((candidate) => candidate.key === OUTPUT_STATE_KEY);
  if (!entry) return null;
  if (entry.type !== 'json') return entry.value;
  try {
    return JSON.parse(entry.value);
  } catch {
    return entry.value;
  }
}
