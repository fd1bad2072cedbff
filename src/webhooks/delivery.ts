// Pushes one event to one endpoint, as the outbox's `webhook.event` kind: the Standard Webhooks body
// `{type, timestamp, data}` POSTed through the outbound guard (checked again at every attempt), signed
// with the endpoint's secret as it is at delivery time. `webhook-id` is the event id, the same on every
// retry and for every endpoint, so receivers drop duplicates. An endpoint deleted or disabled since the
// event was queued gets nothing: the delivery is dropped, not retried.
import { postJsonDelivery } from '../core/outbox/http-delivery.js';
import { DeliveryFailed, type DeliveryHandler } from '../core/outbox/outbox.js';
import type { OutboundPolicy } from '../core/net/outbound-guard.js';
import { webhookHeaders } from '../core/webhooks/signature.js';
import type { EndpointRow } from './store.js';

export const WEBHOOK_EVENT_KIND = 'webhook.event';

/** What the outbox row holds: the event id (the `webhook-id`) and the body as sent. */
export interface WebhookPayload {
  event_id: string;
  body: { type: string; timestamp: string; data: Record<string, unknown> };
}

export function webhookEventDelivery(policy: OutboundPolicy, endpointOf: (accountId: string, endpointId: string) => Promise<EndpointRow | undefined>): DeliveryHandler {
  return async (delivery) => {
    const endpoint = delivery.accountId && delivery.sourceId ? await endpointOf(delivery.accountId, delivery.sourceId) : undefined;
    if (!endpoint) throw new DeliveryFailed('dropped: the webhook endpoint was deleted', { permanent: true });
    if (!endpoint.enabled) throw new DeliveryFailed('dropped: the webhook endpoint is disabled', { permanent: true });
    const payload = delivery.payload as WebhookPayload;
    const body = JSON.stringify(payload.body);
    return postJsonDelivery(endpoint.url, body, { policy, timeoutMs: delivery.timeoutMs, headers: webhookHeaders(endpoint.secret, payload.event_id, body) });
  };
}
