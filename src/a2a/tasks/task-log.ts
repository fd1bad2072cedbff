// The one writer of a task's status and event log. Every change happens inside the caller's transaction
// (a run transition's, a create's, a message's): the task row, its events, the TaskChange each status
// change publishes to every publisher (task webhooks, A2A push), and the wake-up of the log's readers
// once the transaction commits.
import { afterCommit } from '../../core/db/after-commit.js';
import type { Tx } from '../../core/db/handles.js';
import type { TaskChange, TaskChangePublisher, TaskEventKind, TaskStatus, TaskWebhookEvent } from '../contract.js';
import type { TaskSignals } from '../task-signals.js';
import * as store from './store.js';
import { taskView } from './views.js';

const CHANGE_TYPES: Record<TaskStatus, TaskWebhookEvent> = {
  pending: 'task.created',
  running: 'task.running',
  input_needed: 'task.input_needed',
  completed: 'task.completed',
  failed: 'task.failed',
  canceled: 'task.canceled',
};

/** The task change publishers; parts built later (webhooks, push) add theirs when they register. */
export class TaskChangePublishers {
  private readonly publishers: TaskChangePublisher[] = [];

  add(publisher: TaskChangePublisher): void {
    this.publishers.push(publisher);
  }

  async publish(trx: Tx, change: TaskChange): Promise<void> {
    for (const publisher of this.publishers) await publisher.publish(trx, change);
  }
}

export interface TaskUpdate {
  /** Column changes besides the status (progress, output, error, cost…). */
  changes?: Partial<store.TaskRow>;
  /** A new status: a `status` event {status, message} and a published TaskChange come with it. */
  status?: { status: TaskStatus; message: string | null };
  /** Events appended after the `status` event (in this order). */
  events?: { kind: TaskEventKind; data: Record<string, unknown> }[];
}

export class TaskLog {
  constructor(
    private readonly signals: TaskSignals,
    private readonly publishers: TaskChangePublishers,
  ) {}

  /** Applies `update` to `task` (mutated to match), in `trx`. */
  async apply(trx: Tx, task: store.TaskRow, update: TaskUpdate, at: string): Promise<void> {
    const changes: Partial<store.TaskRow> = { ...update.changes, updated_at: at };
    if (update.status) {
      changes.status = update.status.status;
      changes.status_message = update.status.message;
      if (update.status.status === 'running' && !task.started_at) changes.started_at = at;
      if (['completed', 'failed', 'canceled'].includes(update.status.status)) changes.completed_at = at;
    }
    Object.assign(task, changes);
    await store.updateTask(trx, task.id, changes);
    const events = [...(update.status ? [{ kind: 'status' as const, data: { status: update.status.status, message: update.status.message } }] : []), ...(update.events ?? [])];
    for (const event of events) task.event_count = await store.appendEvent(trx, task.id, event.kind, event.data, at);
    if (update.status) {
      const artifacts = await store.artifactsOf(trx, [task.id]);
      await this.publishers.publish(trx, { type: CHANGE_TYPES[update.status.status], accountId: task.account_id, task: taskView(task, artifacts), occurredAt: at });
    }
    if (events.length) afterCommit(trx, () => this.signals.changed(task.id));
  }
}
