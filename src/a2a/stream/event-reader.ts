// Follows a task's event log: what is stored after a sequence, then each event as it is appended,
// until the log's last word (`complete` or `error`) or until the reader is aborted. Woken by
// TaskSignals when this process commits events, and re-reading on a timer so that events written by
// another server process sharing the database arrive too. The log is the one source: a reader that
// resumes after sequence N gets N+1, N+2, … exactly once. The SSE stream and the protocol binding's
// streaming methods both read through it.
import type { TaskEvent, TaskService } from '../contract.js';
import { TERMINAL_TASK_STATUSES } from '../contract.js';
import type { TaskSignals } from '../task-signals.js';

const PAGE = 100;
/** The last events of a task's log; the stream ends after one. */
export const FINAL_EVENT_KINDS: readonly string[] = ['complete', 'error'];

export interface ReaderOptions {
  accountId: string;
  taskId: string;
  afterSequence: number;
  signal: AbortSignal;
  /** Longest wait before re-reading the log without a signal (events from other processes). */
  pollMs: number;
}

export async function* readTaskEvents(tasks: TaskService, signals: TaskSignals, options: ReaderOptions): AsyncGenerator<TaskEvent> {
  const { accountId, taskId, signal, pollMs } = options;
  let after = options.afterSequence;
  let lastStatusCheck = 0;
  while (!signal.aborted) {
    // Asked before reading, so a change committed while the page is read still wakes the wait below;
    // withdrawn when the page had events (the next turn asks again).
    const wait = new AbortController();
    const stopWaiting = () => wait.abort();
    signal.addEventListener('abort', stopWaiting, { once: true });
    const woken = signals.next(taskId, pollMs, wait.signal).finally(() => signal.removeEventListener('abort', stopWaiting));
    const events = await tasks.events(accountId, taskId, after, PAGE).catch((error: unknown) => {
      stopWaiting();
      throw error;
    });
    if (events.length) stopWaiting();
    for (const event of events) {
      if (signal.aborted) return;
      after = event.sequence;
      yield event;
      if (FINAL_EVENT_KINDS.includes(event.kind)) return;
    }
    if (events.length) continue;
    // A task that ended without a final event in its log (nothing more will come): stop once drained.
    if (Date.now() - lastStatusCheck >= 5 * pollMs) {
      lastStatusCheck = Date.now();
      const task = await tasks.get(accountId, taskId);
      if (TERMINAL_TASK_STATUSES.includes(task.status) && !(await tasks.events(accountId, taskId, after, 1)).length) return;
    }
    await woken;
  }
}
