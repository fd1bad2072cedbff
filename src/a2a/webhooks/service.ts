// Task webhooks as users manage them: create (the secret answered once), list, read, delete, and the
// deliveries (read through the outbox). URLs pass the outbound guard when created and at every delivery.
import type { Kysely } from 'kysely';
import type { Database } from '../../core/db/schema.js';
import { Invalid, LimitExceeded, NotFound } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import { checkOutboundUrl, OutboundRefused, type OutboundPolicy } from '../../core/net/outbound-guard.js';
import type { Outbox } from '../../core/outbox/outbox.js';
import type { DeliveryStatus } from '../../core/outbox/store.js';
import type { TextSealer } from '../../core/sealed-text.js';
import { sealPlainValues } from '../../core/sealed-columns.js';
import { nowIso } from '../../core/time.js';
import { TASK_WEBHOOK_KIND } from './delivery.js';
import { parseTaskEvents } from './events.js';
import type { CreateTaskWebhookInput } from './schemas.js';
import { generateTaskWebhookSecret } from './signature.js';
import * as store from './store.js';
import { deliveryView, webhookView } from './views.js';

export const MAX_TASK_WEBHOOKS_PER_ACCOUNT = 20;

export class TaskWebhookService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly outbox: Outbox,
    private readonly policy: OutboundPolicy,
    /** Secrets are stored sealed, bound to their webhook's id. */
    private readonly sealer: TextSealer,
  ) {}

  /** Seals the secrets stored in plain text before sealing existed; run at start-up, safe on every node at once. */
  async sealStoredSecrets(): Promise<void> {
    await sealPlainValues(this.db, { table: 'a2a_webhooks', key: 'id', column: 'secret', seal: (value, id) => this.sealer.seal(value, id) });
  }

  async create(accountId: string, input: CreateTaskWebhookInput) {
    const now = nowIso();
    const row: store.TaskWebhookRow = {
      id: newId('twh'),
      account_id: accountId,
      url: this.checkedUrl('body.url', input.url),
      events: JSON.stringify(parseTaskEvents(input.events, 'body.events')),
      secret: input.secret ?? generateTaskWebhookSecret(),
      created_at: now,
      updated_at: now,
    };
    await this.db.transaction().execute(async (trx) => {
      if ((await store.countWebhooks(trx, accountId)) >= MAX_TASK_WEBHOOKS_PER_ACCOUNT) {
        throw new LimitExceeded(`an account can have ${MAX_TASK_WEBHOOKS_PER_ACCOUNT} task webhooks; delete one first`, 'quota_exceeded');
      }
      await store.insertWebhook(trx, { ...row, secret: this.sealer.seal(row.secret, row.id) });
    });
    return webhookView(row, true);
  }

  async list(accountId: string) {
    return (await store.listWebhooks(this.db, accountId)).map((row) => webhookView(row));
  }

  async get(accountId: string, id: string) {
    return webhookView(await this.row(accountId, id));
  }

  async delete(accountId: string, id: string): Promise<void> {
    if (!(await store.deleteWebhook(this.db, accountId, id))) throw new NotFound('task webhook');
  }

  /** The webhook's deliveries, newest first, each with its attempts. */
  async deliveries(accountId: string, id: string, filter: { status?: DeliveryStatus; limit: number; offset: number }) {
    const webhook = await this.row(accountId, id);
    const rows = await this.outbox.list({ accountId, kindPrefix: TASK_WEBHOOK_KIND, kind: TASK_WEBHOOK_KIND, sourceId: webhook.id, ...filter });
    const attempts = await this.outbox.attempts(rows.map((row) => row.id));
    return rows.map((row) => deliveryView(row, attempts));
  }

  /** The webhook as it is now, its secret opened, for the delivery handler (undefined once deleted). */
  async webhookForDelivery(accountId: string, id: string) {
    const row = await store.findWebhook(this.db, accountId, id);
    return row && { ...row, secret: this.sealer.open(row.secret, row.id) };
  }

  private async row(accountId: string, id: string): Promise<store.TaskWebhookRow> {
    const row = await store.findWebhook(this.db, accountId, id);
    if (!row) throw new NotFound('task webhook');
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
