// The EventPublisher the features publish through: in the transaction that decided the event, one
// outbox delivery per enabled endpoint of the account subscribed to its type, so an event is pushed
// if and only if its change committed. Deliveries are picked up at the outbox's next poll.
import type { Tx } from '../core/db/handles.js';
import type { Kysely } from 'kysely';
import type { Database } from '../core/db/schema.js';
import type { EventPublisher, PublishedEvent } from '../core/events/published.js';
import type { Outbox } from '../core/outbox/outbox.js';
import { WEBHOOK_EVENT_KIND, type WebhookPayload } from './delivery.js';
import * as store from './store.js';
import { subscribesTo } from './subscriptions.js';

export class WebhookPublisher implements EventPublisher {
  constructor(private readonly outbox: Outbox) {}

  async publish(trx: Tx, event: PublishedEvent): Promise<void> {
    const endpoints = await store.enabledEndpoints(trx, event.accountId);
    const payload: WebhookPayload = { event_id: event.id, body: { type: event.type, timestamp: event.occurredAt, data: event.data } };
    for (const endpoint of endpoints) {
      if (!subscribesTo(JSON.parse(endpoint.events), event.type)) continue;
      await this.outbox.enqueue(trx, { kind: WEBHOOK_EVENT_KIND, accountId: event.accountId, sourceId: endpoint.id, target: endpoint.url, payload });
    }
  }
}
