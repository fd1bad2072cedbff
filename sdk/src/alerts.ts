// paddock.alerts: alerts (list, read, resolve), their rules, the notification channels and the in-app notifications.
import type { Http } from './core/http.js';
import { segment } from './core/paths.js';
import type { BodyOf, QueryOf, ResponseOf, Schemas } from './core/types.js';

export type Alert = Schemas['Alert'];
export type AlertRule = Schemas['AlertRule'];
export type UpdateAlertRuleParams = BodyOf<'/v1/alerts/rules/{id}', 'put'>;
export type Notification = Schemas['Notification'];
export type NotificationWithDeliveries = ResponseOf<'/v1/notifications/{id}', 'get'>;
/** Per channel (email, chat, webhook, …): `enabled` and its target. */
export type NotificationConfig = Schemas['NotificationConfig'];
export type UpdateNotificationConfigParams = BodyOf<'/v1/notifications/config', 'put'>;
export type ChannelDelivery = Schemas['Delivery'];

/** `paddock.alerts.notifications`: what raised alerts told the account, and how each channel delivered it. */
export class Notifications {
  constructor(private readonly http: Http) {}

  list(query: QueryOf<'/v1/notifications', 'get'> = {}): Promise<Notification[]> {
    return this.http.request('GET', '/v1/notifications', { query });
  }

  get(notificationId: string): Promise<NotificationWithDeliveries> {
    return this.http.request('GET', `/v1/notifications/${segment(notificationId)}`);
  }

  async unreadCount(): Promise<number> {
    return (await this.http.request<{ count: number }>('GET', '/v1/notifications/unread-count')).count;
  }

  markRead(notificationId: string): Promise<Notification> {
    return this.http.request('POST', `/v1/notifications/${segment(notificationId)}/read`);
  }

  /** Resolves to how many were unread. */
  async markAllRead(): Promise<number> {
    return (await this.http.request<{ marked_read: number }>('POST', '/v1/notifications/read-all')).marked_read;
  }

  /** Every delivery of a notification to a channel, with its attempts. */
  deliveries(query: QueryOf<'/v1/notifications/deliveries', 'get'> = {}): Promise<ChannelDelivery[]> {
    return this.http.request('GET', '/v1/notifications/deliveries', { query });
  }
}

export class Alerts {
  readonly notifications: Notifications;

  constructor(private readonly http: Http) {
    this.notifications = new Notifications(http);
  }

  /** Newest first; filter by `resolved`, `type`, `sandbox_id`, `severity`. */
  list(query: QueryOf<'/v1/alerts', 'get'> = {}): Promise<Alert[]> {
    return this.http.request('GET', '/v1/alerts', { query });
  }

  get(alertId: string): Promise<Alert> {
    return this.http.request('GET', `/v1/alerts/${segment(alertId)}`);
  }

  /** Marks the alert resolved (repeating it answers it unchanged). */
  resolve(alertId: string): Promise<Alert> {
    return this.http.request('POST', `/v1/alerts/${segment(alertId)}/resolve`);
  }

  /** The account's alert rules, one per alert type. */
  rules(): Promise<AlertRule[]> {
    return this.http.request('GET', '/v1/alerts/rules');
  }

  /** Changes a rule's `enabled`, `threshold` or `channels`. */
  updateRule(ruleId: string, params: UpdateAlertRuleParams): Promise<AlertRule> {
    return this.http.request('PUT', `/v1/alerts/rules/${segment(ruleId)}`, { body: params });
  }

  /** The notification channels (email, chat, webhook …) and their targets. */
  channels(): Promise<NotificationConfig> {
    return this.http.request('GET', '/v1/notifications/config');
  }

  updateChannels(params: UpdateNotificationConfigParams): Promise<NotificationConfig> {
    return this.http.request('PUT', '/v1/notifications/config', { body: params });
  }
}
