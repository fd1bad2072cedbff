// Pushes one task change to one task webhook, as the outbox's `a2a.task_webhook` kind: the body
// built and signed at each attempt (signature.ts) with the webhook's secret, POSTed through the
// outbound guard (checked again at every attempt). X-Paddock-Delivery is the outbox row's id, the same
// on every retry, so receivers drop duplicates. A webhook deleted since the change was queued gets
// nothing: the delivery is dropped, not retried.
import { postJsonDelivery } from '../../core/outbox/http-delivery.js';
import { DeliveryFailed, type DeliveryHandler } from '../../core/outbox/outbox.js';
import type { OutboundPolicy } from '../../core/net/outbound-guard.js';
import { SIGNATURE_HEADER, taskWebhookBody, type WebhookTask } from './signature.js';
import type { TaskWebhookRow } from './store.js';

export const TASK_WEBHOOK_KIND = 'a2a.task_webhook';

/** What the outbox row holds: the change as it was when it committed. */
export interface TaskWebhookPayload {
  event: string;
  timestamp: string;
  task: WebhookTask;
}

export function taskWebhookDelivery(policy: OutboundPolicy, webhookOf: (accountId: string, webhookId: string) => Promise<TaskWebhookRow | undefined>): DeliveryHandler {
  return async (delivery) => {
    const webhook = delivery.accountId && delivery.sourceId ? await webhookOf(delivery.accountId, delivery.sourceId) : undefined;
    if (!webhook) throw new DeliveryFailed('dropped: the task webhook was deleted', { permanent: true });
    const payload = delivery.payload as TaskWebhookPayload;
    const { body, signature } = taskWebhookBody(webhook.secret, payload.event, payload.timestamp, payload.task);
    return postJsonDelivery(webhook.url, body, {
      policy,
      timeoutMs: delivery.timeoutMs,
      headers: { [SIGNATURE_HEADER]: signature, 'x-paddock-event': payload.event, 'x-paddock-delivery': delivery.id },
    });
  };
}
