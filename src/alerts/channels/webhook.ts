// `webhook`: the account's own endpoint, called with a Standard Webhooks event `{type, timestamp, data}`
// signed with the account's current secret. `webhook-id` is the delivery id, the same on every retry,
// so receivers can drop duplicates.
import type { OutboundPolicy } from '../../core/net/outbound-guard.js';
import { DeliveryFailed } from '../../core/outbox/outbox.js';
import { postJsonDelivery } from '../../core/outbox/http-delivery.js';
import type { ChannelMessage, NotificationChannel } from './channel.js';
import { webhookHeaders } from '../../core/webhooks/signature.js';

export function renderWebhook(message: ChannelMessage) {
  return { type: message.event.type, timestamp: message.createdAt, data: message.event.data };
}

/** `secretFor` reads the secret when delivering, so a rotated secret signs retries too. */
export function webhookChannel(policy: OutboundPolicy, secretFor: (accountId: string) => Promise<string | null>): NotificationChannel {
  return {
    name: 'webhook',
    render: renderWebhook,
    deliver: async (delivery) => {
      const secret = delivery.accountId ? await secretFor(delivery.accountId) : null;
      if (!secret) throw new DeliveryFailed('the account has no webhook secret', { permanent: true });
      const body = JSON.stringify(delivery.payload);
      return postJsonDelivery(delivery.target, body, { policy, timeoutMs: delivery.timeoutMs, headers: webhookHeaders(secret, delivery.id, body) });
    },
  };
}
