// Webhook endpoints as users manage them: create (with a secret answered once), list, read, change,
// delete, a test delivery, and the recent deliveries (read through the outbox). URLs pass the same
// outbound guard as notification webhooks when saved, and again at every delivery.
import type { Kysely } from 'kysely';
import type { Database } from '../core/db/schema.js';
import { Conflict, Invalid, LimitExceeded, NotFound } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { checkOutboundUrl, OutboundRefused, type OutboundPolicy } from '../core/net/outbound-guard.js';
import type { Outbox } from '../core/outbox/outbox.js';
import type { DeliveryStatus } from '../core/outbox/store.js';
import type { TextSealer } from '../core/sealed-text.js';
import { sealPlainValues } from '../core/sealed-columns.js';
import { nowIso } from '../core/time.js';
import { generateWebhookSecret, secretKey } from '../core/webhooks/signature.js';
import { WEBHOOK_EVENT_KIND, type WebhookPayload } from './delivery.js';
import type { CreateWebhookInput, UpdateWebhookInput } from './schemas.js';
import * as store from './store.js';
import { parseSubscriptions } from './subscriptions.js';
import { deliveryView, endpointView } from './views.js';

export const MAX_ENDPOINTS_PER_ACCOUNT = 20;
export const TEST_EVENT_TYPE = 'webhook.test';

export class WebhookService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly outbox: Outbox,
    private readonly policy: OutboundPolicy,
    /** Secrets are stored sealed, bound to their endpoint's id. */
    private readonly sealer: TextSealer,
  ) {}

  /** Seals the secrets stored in plain text before sealing existed; run at start-up, safe on every node at once. */
  async sealStoredSecrets(): Promise<void> {
    await sealPlainValues(this.db, { table: 'webhook_endpoints', key: 'id', column: 'secret', seal: (value, id) => this.sealer.seal(value, id) });
  }

  async create(accountId: string, input: CreateWebhookInput) {
    const now = nowIso();
    const row: store.EndpointRow = {
      id: newId('whe'),
      account_id: accountId,
      url: this.checkedUrl('body.url', input.url),
      events: JSON.stringify(parseSubscriptions(input.events, 'body.events')),
      secret: input.secret === undefined ? generateWebhookSecret() : checkedSecret('body.secret', input.secret),
      description: input.description ?? null,
      enabled: input.enabled === false ? 0 : 1,
      created_at: now,
      updated_at: now,
    };
    await this.db.transaction().execute(async (trx) => {
      if ((await store.countEndpoints(trx, accountId)) >= MAX_ENDPOINTS_PER_ACCOUNT) {
        throw new LimitExceeded(`an account can have ${MAX_ENDPOINTS_PER_ACCOUNT} webhook endpoints; delete one first`, 'quota_exceeded');
      }
      await store.insertEndpoint(trx, { ...row, secret: this.sealer.seal(row.secret, row.id) });
    });
    return endpointView(row, true);
  }

  async list(accountId: string) {
    return (await store.listEndpoints(this.db, accountId)).map((row) => endpointView(row));
  }

  async get(accountId: string, id: string) {
    return endpointView(await this.row(accountId, id));
  }

  async update(accountId: string, id: string, input: UpdateWebhookInput) {
    if (!Object.keys(input).length) throw new Invalid('body', 'names nothing to change: send any of url, events, enabled, description, secret, rotate_secret');
    if (input.secret !== undefined && input.rotate_secret) throw new Invalid('body.rotate_secret', 'cannot be combined with secret');
    const changes = {
      ...(input.url !== undefined ? { url: this.checkedUrl('body.url', input.url) } : {}),
      ...(input.events !== undefined ? { events: JSON.stringify(parseSubscriptions(input.events, 'body.events')) } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled ? 1 : 0 } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.secret !== undefined ? { secret: checkedSecret('body.secret', input.secret) } : {}),
      ...(input.rotate_secret ? { secret: generateWebhookSecret() } : {}),
      updated_at: nowIso(),
    };
    const row = await this.row(accountId, id);
    const stored = changes.secret === undefined ? changes : { ...changes, secret: this.sealer.seal(changes.secret, id) };
    await store.updateEndpoint(this.db, accountId, id, stored);
    return endpointView({ ...row, ...changes }, input.rotate_secret === true);
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (!(await store.deleteEndpoint(this.db, accountId, id))) throw new NotFound('webhook endpoint');
  }

  /** Queues a `webhook.test` event to this endpoint alone, whatever it subscribes to; answers the delivery. */
  async test(accountId: string, id: string) {
    const endpoint = await this.row(accountId, id);
    if (!endpoint.enabled) throw new Conflict('the webhook endpoint is disabled: enable it (PATCH with "enabled": true) to send it a test delivery');
    const now = nowIso();
    const payload: WebhookPayload = {
      event_id: newId('evt'),
      body: {
        type: TEST_EVENT_TYPE,
        timestamp: now,
        data: { endpoint_id: endpoint.id, message: 'A test delivery from Paddock: the endpoint is reachable and the signature verifies with its secret.' },
      },
    };
    const deliveryId = await this.outbox.enqueue(this.db, { kind: WEBHOOK_EVENT_KIND, accountId, sourceId: endpoint.id, target: endpoint.url, payload });
    this.outbox.wake();
    return deliveryView((await this.outbox.find(accountId, deliveryId))!, []);
  }

  /** The endpoint's deliveries, newest first, each with its attempts. */
  async deliveries(accountId: string, id: string, filter: { status?: DeliveryStatus; limit: number; offset: number }) {
    const endpoint = await this.row(accountId, id);
    const rows = await this.outbox.list({ accountId, kindPrefix: WEBHOOK_EVENT_KIND, kind: WEBHOOK_EVENT_KIND, sourceId: endpoint.id, ...filter });
    const attempts = await this.outbox.attempts(rows.map((row) => row.id));
    return rows.map((row) => deliveryView(row, attempts));
  }

  /** The endpoint as it is now, its secret opened, for the delivery handler (undefined once deleted). */
  async endpointForDelivery(accountId: string, id: string) {
    const row = await store.findEndpoint(this.db, accountId, id);
    return row && { ...row, secret: this.sealer.open(row.secret, row.id) };
  }

  private async row(accountId: string, id: string): Promise<store.EndpointRow> {
    const row = await store.findEndpoint(this.db, accountId, id);
    if (!row) throw new NotFound('webhook endpoint');
    return row;
  }

  private checkedUrl(field: string, url: string): string {
    try {
      return checkOutboundUrl(url, this.policy).toString();
    } catch (error) {
      if (error instanceof OutboundRefused) throw new Invalid(field, error.message);
      throw error;
    }
  }
}

function checkedSecret(field: string, secret: string): string {
  if (!secretKey(secret)) throw new Invalid(field, 'must be whsec_ followed by the base64 encoding of 24 to 64 bytes');
  return secret;
}
