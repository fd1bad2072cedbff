// Sandbox callbacks (`on_complete`, `on_budget_exceeded`) go through the durable outbox as kind
// `sandbox.callback`: POSTed through the outbound guard (re-checked at every attempt, so a host that
// now resolves to a private address is refused) and signed with the account's webhook secret, exactly
// as the alert webhook channel signs, so `webhook-id` is the same on every retry.
import type { Kysely } from 'kysely';
import { postJsonDelivery } from '../../core/outbox/http-delivery.js';
import { webhookHeaders } from '../../core/webhooks/signature.js';
import type { Database } from '../../core/db/schema.js';
import type { OutboundPolicy } from '../../core/net/outbound-guard.js';
import { DeliveryFailed, type DeliveryHandler, type Outbox } from '../../core/outbox/outbox.js';

export const CALLBACK_KIND = 'sandbox.callback';

/** `secretFor` is read at each attempt, so a rotated secret signs retries too. */
export function callbackDelivery(policy: OutboundPolicy, secretFor: (accountId: string) => Promise<string | null>): DeliveryHandler {
  return async (delivery) => {
    const secret = delivery.accountId ? await secretFor(delivery.accountId) : null;
    if (!secret) throw new DeliveryFailed('the account has no webhook secret to sign callbacks with', { permanent: true });
    const body = JSON.stringify(delivery.payload);
    return postJsonDelivery(delivery.target, body, { policy, timeoutMs: delivery.timeoutMs, headers: webhookHeaders(secret, delivery.id, body) });
  };
}

/** Queues a callback in the caller's transaction, so it is sent if and only if the change commits. */
export function queueCallback(outbox: Outbox, db: Kysely<Database>, callback: { accountId: string; sandboxId: string; url: string; event: unknown }): Promise<string> {
  return outbox.enqueue(db, { kind: CALLBACK_KIND, accountId: callback.accountId, sourceId: callback.sandboxId, target: callback.url, payload: callback.event });
}
