// Reads a task's event log for the protocol's streaming methods: status and progress events as status
// updates, artifacts as artifact updates (with their content), and — just before the final status —
// the output artifact, until the task ends or needs input. New events are awaited with TaskSignals
// (woken at commit) and a periodic re-read, so events written by another server process arrive too.
import type { StreamResponse } from '@a2a-js/sdk';
import type { TaskService, TaskView } from '../contract.js';
import { TERMINAL_TASK_STATUSES, type TaskStatus } from '../contract.js';
import type { TaskSignals } from '../task-signals.js';
import { outputArtifact, toA2aArtifact, toStatusUpdate } from './mapping.js';

const EVENTS_PAGE = 100;
/** How long a reader waits for a signal before re-reading the log anyway. */
const REREAD_INTERVAL_MS = 1000;

/** A status the protocol's streams stop after. */
export function endsStream(status: TaskStatus): boolean {
  return TERMINAL_TASK_STATUSES.includes(status) || status === 'input_needed';
}

/** The sequence of the task's last event (0 when it has none). */
export async function lastSequence(tasks: TaskService, accountId: string, taskId: string): Promise<number> {
  let after = 0;
  for (;;) {
    const page = await tasks.events(accountId, taskId, after, EVENTS_PAGE);
    if (!page.length) return after;
    after = page[page.length - 1].sequence;
    if (page.length < EVENTS_PAGE) return after;
  }
}

/** Stream updates for the events after `afterSequence`, until a status that ends the stream or `signal` aborts. */
export async function* followTask(
  deps: { tasks: TaskService; signals: TaskSignals },
  accountId: string,
  task: TaskView,
  afterSequence: number,
  signal: AbortSignal,
): AsyncGenerator<StreamResponse, void, undefined> {
  let after = afterSequence;
  while (!signal.aborted) {
    const events = await deps.tasks.events(accountId, task.id, after, EVENTS_PAGE);
    for (const event of events) {
      after = event.sequence;
      if (event.kind === 'artifact') {
        const { view, content } = await deps.tasks.artifact(accountId, task.id, String(event.data.id));
        yield {
          payload: {
            $case: 'artifactUpdate',
            value: { taskId: task.id, contextId: task.context_id, artifact: toA2aArtifact(view, content), append: false, lastChunk: true, metadata: { sequence: event.sequence } },
          },
        };
        continue;
      }
      const update = toStatusUpdate(task, event);
      if (!update) continue;
      const status = event.kind === 'status' ? (event.data.status as TaskStatus) : null;
      if (status === 'completed') {
        const output = outputArtifact((await deps.tasks.get(accountId, task.id)).output);
        if (output) yield { payload: { $case: 'artifactUpdate', value: { taskId: task.id, contextId: task.context_id, artifact: output, append: false, lastChunk: true, metadata: {} } } };
      }
      yield { payload: { $case: 'statusUpdate', value: update } };
      if (status && endsStream(status)) return;
    }
    if (events.length < EVENTS_PAGE) await deps.signals.next(task.id, REREAD_INTERVAL_MS, signal);
  }
}

/** Resolves once the log after `afterSequence` holds a status that ends a stream, or when `signal` aborts. */
export async function waitForStop(deps: { tasks: TaskService; signals: TaskSignals }, accountId: string, taskId: string, afterSequence: number, signal: AbortSignal): Promise<void> {
  let after = afterSequence;
  while (!signal.aborted) {
    const events = await deps.tasks.events(accountId, taskId, after, EVENTS_PAGE);
    for (const event of events) {
      after = event.sequence;
      if (event.kind === 'status' && endsStream(event.data.status as TaskStatus)) return;
    }
    if (events.length < EVENTS_PAGE) await deps.signals.next(taskId, REREAD_INTERVAL_MS, signal);
  }
}
