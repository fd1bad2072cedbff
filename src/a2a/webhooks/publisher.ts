// The TaskChangePublisher of task webhooks: in the transaction that changed the task, one outbox
// delivery per webhook of the account that receives the change's event, so a change is pushed if and
// only if it committed. The outbox is woken once the transaction commits.
import { afterCommit } from '../../core/db/after-commit.js';
import type { Tx } from '../../core/db/handles.js';
import type { Outbox } from '../../core/outbox/outbox.js';
import type { TaskChange, TaskChangePublisher } from '../contract.js';
import { TASK_WEBHOOK_KIND, type TaskWebhookPayload } from './delivery.js';
import { receives } from './events.js';
import * as store from './store.js';

export class TaskWebhookPublisher implements TaskChangePublisher {
  constructor(private readonly outbox: Outbox) {}

  async publish(trx: Tx, change: TaskChange): Promise<void> {
    const webhooks = (await store.listWebhooks(trx, change.accountId)).filter((webhook) => receives(JSON.parse(webhook.events), change.type));
    if (!webhooks.length) return;
    const { task } = change;
    const payload: TaskWebhookPayload = {
      event: change.type,
      timestamp: change.occurredAt,
      task: { id: task.id, agent_id: task.agent_id, status: task.status, status_message: task.status_message, output: task.output ?? null },
    };
    for (const webhook of webhooks) {
      await this.outbox.enqueue(trx, { kind: TASK_WEBHOOK_KIND, accountId: change.accountId, sourceId: webhook.id, target: webhook.url, payload });
    }
    afterCommit(trx, () => this.outbox.wake());
  }
}
