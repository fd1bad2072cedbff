// Notifications: the in-app record every alert (and later other events) creates, its deliveries to the
// channels the account enabled, and the notification config those deliveries read.
import type { Kysely, Updateable } from 'kysely';
import type { SqlDialect } from '../../core/db/dialect.js';
import type { Database, NotificationConfigsTable } from '../../core/db/schema.js';
import { NotFound } from '../../core/errors.js';
import { newId } from '../../core/ids.js';
import type { OutboundPolicy } from '../../core/net/outbound-guard.js';
import type { Outbox } from '../../core/outbox/outbox.js';
import type { DeliveryStatus } from '../../core/outbox/store.js';
import type { TextSealer } from '../../core/sealed-text.js';
import { sealPlainValues } from '../../core/sealed-columns.js';
import { nowIso } from '../../core/time.js';
import { outboxKind, type ChannelMessage, type NotificationChannel } from '../channels/channel.js';
import { CHANNELS, type Channel } from '../rules.js';
import { applyConfigUpdate, channelTarget, configView, defaultConfig, type ConfigUpdate } from './config.js';
import * as store from './store.js';
import { deliveryView, notificationView } from './views.js';

export interface NewNotification {
  accountId: string;
  alertId: string | null;
  type: string;
  severity: ChannelMessage['severity'];
  title: string;
  message: string;
  sandboxId: string | null;
  /** Channels to deliver to, among those the account's config enables. */
  channels: readonly Channel[];
  /** What the `webhook` channel sends as `{type, timestamp, data}`. */
  event: { type: string; data: unknown };
}

export interface Page {
  limit: number;
  offset: number;
}

const NOTIFICATION_KIND_PREFIX = 'notification.';
const CHAT_URL_COLUMNS = ['chat_a_webhook_url', 'chat_b_webhook_url'] as const;

/** What a chat URL is sealed for: its account and its column, so neither opens elsewhere. */
function chatUrlRow(accountId: string, column: (typeof CHAT_URL_COLUMNS)[number]): string {
  return `${accountId}/${column}`;
}

export class NotificationService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: SqlDialect,
    private readonly outbox: Outbox,
    private readonly channels: Record<Channel, NotificationChannel>,
    private readonly policy: OutboundPolicy,
    /** The webhook channel's secret and the chat webhook URLs (each a credential) are stored sealed, bound to their account. */
    private readonly sealer: TextSealer,
  ) {}

  /** Seals the secrets stored in plain text before sealing existed; run at start-up, safe on every node at once. */
  async sealStoredSecrets(): Promise<void> {
    const table = 'notification_configs';
    await sealPlainValues(this.db, { table, key: 'account_id', column: 'webhook_secret', seal: (value, accountId) => this.sealer.seal(value, accountId) });
    for (const column of CHAT_URL_COLUMNS) {
      await sealPlainValues(this.db, { table, key: 'account_id', column, seal: (value, accountId) => this.sealer.seal(value, chatUrlRow(accountId, column)) });
    }
  }

  /** Records the notification and queues a delivery per enabled channel, through `db` (the caller's transaction). */
  async create(db: Kysely<Database>, input: NewNotification): Promise<string> {
    const row: store.NotificationRow = {
      id: newId('ntf'),
      account_id: input.accountId,
      alert_id: input.alertId,
      type: input.type,
      severity: input.severity,
      title: input.title,
      message: input.message,
      sandbox_id: input.sandboxId,
      read: 0,
      read_at: null,
      created_at: nowIso(),
    };
    await store.insertNotification(db, row);
    const stored = await store.findConfig(db, input.accountId);
    const config = stored && this.opened(stored);
    const message: ChannelMessage = {
      notificationId: row.id,
      type: row.type,
      severity: input.severity,
      title: row.title,
      message: row.message,
      sandboxId: row.sandbox_id,
      createdAt: row.created_at,
      event: input.event,
    };
    const channels = this.channels;
    for (const name of CHANNELS.filter((channel) => input.channels.includes(channel))) {
      const target = channelTarget(config, name);
      if (!target) continue;
      await this.outbox.enqueue(db, { kind: outboxKind(name), accountId: input.accountId, sourceId: row.id, target, payload: channels[name].render(message) });
    }
    return row.id;
  }

  async list(accountId: string, filter: { unread?: boolean; type?: string }, page: Page) {
    const query = { accountId, ...filter };
    const [rows, total] = await Promise.all([store.listNotifications(this.db, query, page), store.countNotifications(this.db, query)]);
    return { notifications: rows.map(notificationView), total };
  }

  async get(accountId: string, id: string) {
    const row = await store.findNotification(this.db, accountId, id);
    if (!row) throw new NotFound('notification');
    const deliveries = await this.outbox.forSources([row.id]);
    const attempts = await this.outbox.attempts(deliveries.map((d) => d.id));
    return { ...notificationView(row), deliveries: deliveries.map((d) => deliveryView(d, attempts)) };
  }

  async unreadCount(accountId: string): Promise<number> {
    return store.countNotifications(this.db, { accountId, unread: true });
  }

  async markRead(accountId: string, id: string) {
    await store.markRead(this.db, accountId, id, nowIso());
    const row = await store.findNotification(this.db, accountId, id);
    if (!row) throw new NotFound('notification');
    return notificationView(row);
  }

  async markAllRead(accountId: string): Promise<number> {
    return store.markAllRead(this.db, accountId, nowIso());
  }

  async deliveries(accountId: string, filter: { notificationId?: string; channel?: Channel; status?: DeliveryStatus }, page: Page) {
    const rows = await this.outbox.list({
      accountId,
      kindPrefix: NOTIFICATION_KIND_PREFIX,
      sourceId: filter.notificationId,
      kind: filter.channel ? outboxKind(filter.channel) : undefined,
      status: filter.status,
      ...page,
    });
    const attempts = await this.outbox.attempts(rows.map((row) => row.id));
    return rows.map((row) => deliveryView(row, attempts));
  }

  async delivery(accountId: string, id: string) {
    const row = await this.outbox.find(accountId, id);
    if (!row || !row.kind.startsWith(NOTIFICATION_KIND_PREFIX)) throw new NotFound('delivery');
    return deliveryView(row, await this.outbox.attempts([row.id]));
  }

  /** The account's config, its secret opened, created with defaults (and a fresh webhook secret) on first use. */
  private async configRow(db: Kysely<Database>, accountId: string, forUpdate = false): Promise<store.ConfigRow> {
    const existing = await store.findConfig(db, accountId, forUpdate ? this.dialect : null);
    if (existing) return this.opened(existing);
    const fresh = defaultConfig(accountId, nowIso());
    await store.insertConfigIfMissing(db, { ...fresh, webhook_secret: this.sealer.seal(fresh.webhook_secret, accountId) });
    return this.opened((await store.findConfig(db, accountId, forUpdate ? this.dialect : null))!);
  }

  private opened(row: store.ConfigRow): store.ConfigRow {
    const opened = { ...row, webhook_secret: this.sealer.open(row.webhook_secret, row.account_id) };
    for (const column of CHAT_URL_COLUMNS) {
      const value = row[column];
      if (value !== null) opened[column] = this.sealer.open(value, chatUrlRow(row.account_id, column));
    }
    return opened;
  }

  private sealed(accountId: string, changes: Updateable<NotificationConfigsTable>): Updateable<NotificationConfigsTable> {
    const sealed = { ...changes, webhook_secret: this.sealer.seal(changes.webhook_secret!, accountId) };
    for (const column of CHAT_URL_COLUMNS) {
      const value = changes[column];
      if (value) sealed[column] = this.sealer.seal(value, chatUrlRow(accountId, column));
    }
    return sealed;
  }

  async config(accountId: string) {
    return configView(await this.configRow(this.db, accountId));
  }

  /** Merges `update` into the stored config; concurrent updates apply one after the other. */
  async updateConfig(accountId: string, update: ConfigUpdate) {
    return this.db.transaction().execute(async (trx) => {
      const current = await this.configRow(trx, accountId, true);
      const changes = applyConfigUpdate(current, update, this.policy, nowIso());
      await store.updateConfig(trx, accountId, this.sealed(accountId, changes));
      return configView({ ...current, ...changes } as store.ConfigRow);
    });
  }

  /** The secret the `webhook` channel signs with, read when delivering. */
  async webhookSecret(accountId: string): Promise<string | null> {
    const row = await store.findConfig(this.db, accountId);
    return row ? this.sealer.open(row.webhook_secret, accountId) : null;
  }
}
