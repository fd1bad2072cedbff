// A2A push notifications: every status change of a task with push-notification configs queues one
// outbox row per config in the transaction of the change (TaskChangePublisher), and the outbox POSTs
// the task, as the A2A SDK's v1.0 serializer does (a StreamResponse holding the task, proto JSON), with
// the config's token in X-A2A-Notification-Token and its authentication in Authorization. The payload
// carries them sealed, as the config's row does; the handler opens them. Retries, the SSRF guard at each
// attempt and the delivery log are the outbox's.
import { StreamResponse } from '@a2a-js/sdk';
import { V1PushNotificationSerializer } from '@a2a-js/sdk/server';
import type { Db, Tx } from '../../core/db/handles.js';
import type { OutboundPolicy } from '../../core/net/outbound-guard.js';
import { postJsonDelivery } from '../../core/outbox/http-delivery.js';
import type { DeliveryHandler, Outbox } from '../../core/outbox/outbox.js';
import type { TaskChange, TaskChangePublisher, TaskView } from '../contract.js';
import { toA2aTask } from './mapping.js';
import type { PushConfigStore, StoredPushConfig } from './push-configs.js';
import type { PushCredentials, PushCredentialSealer, SealedPushCredentials } from './push-credentials.js';

export const PUSH_NOTIFICATION_KIND = 'a2a.push_notification';
export const NOTIFICATION_TOKEN_HEADER = 'X-A2A-Notification-Token';

interface PushPayload extends SealedPushCredentials {
  /** The serialized body, fixed when the change happened. */
  body: string;
  /** The config the credentials are sealed for. */
  configId: string;
}

/** As a version before sealing queued it: the credentials in clear. Delivered as it is, not rewritten: such
 * rows go with the outbox's retention (PADDOCK_OUTBOX_RETENTION_DAYS) like any other. */
interface PlainPushPayload extends PushCredentials {
  body: string;
}

const serializer = new V1PushNotificationSerializer();

/** Queues the task as it is now for each config, in `db` (the caller's transaction when there is one). */
export async function queuePushes(outbox: Outbox, credentials: PushCredentialSealer, db: Db | Tx, accountId: string, view: TaskView, targets: StoredPushConfig[]): Promise<void> {
  if (!targets.length) return;
  const task = toA2aTask(view);
  const { body } = serializer.serialize({ payload: { $case: 'task', value: task } } satisfies StreamResponse, task);
  for (const config of targets) {
    const payload: PushPayload = { body, configId: config.id, ...credentials.seal(config, config.id) };
    await outbox.enqueue(db, { kind: PUSH_NOTIFICATION_KIND, accountId, sourceId: view.id, target: config.url, payload });
  }
}

export function pushNotificationPublisher(configs: PushConfigStore, outbox: Outbox, credentials: PushCredentialSealer): TaskChangePublisher {
  return {
    async publish(trx: Tx, change: TaskChange): Promise<void> {
      await queuePushes(outbox, credentials, trx, change.accountId, change.task, await configs.list(change.accountId, change.task.id, trx));
    },
  };
}

export function pushNotificationDelivery(policy: OutboundPolicy, credentials: PushCredentialSealer): DeliveryHandler {
  return async (delivery) => {
    const payload = delivery.payload as PushPayload | PlainPushPayload;
    const { token, authentication } = 'configId' in payload ? credentials.open(payload, payload.configId) : payload;
    const headers: Record<string, string> = { 'content-type': 'application/a2a+json' };
    if (token) headers[NOTIFICATION_TOKEN_HEADER] = token;
    if (authentication) headers.authorization = `${authentication.scheme} ${authentication.credentials}`;
    return postJsonDelivery(delivery.target, payload.body, { policy, timeoutMs: delivery.timeoutMs, headers });
  };
}
