// The seam between notifications and the outside world: each channel renders a notification into the
// payload stored in its outbox row, and delivers that row when the outbox worker runs it.
import type { DeliveryHandler } from '../../core/outbox/outbox.js';
import type { Channel } from '../rules.js';

export interface ChannelMessage {
  notificationId: string;
  /** The alert type (or another notification type). */
  type: string;
  severity: 'info' | 'warning' | 'error' | 'critical';
  title: string;
  message: string;
  sandboxId: string | null;
  createdAt: string;
  /** What the `webhook` channel sends: a Standard Webhooks event `{type, timestamp, data}`. */
  event: { type: string; data: unknown };
}

export interface NotificationChannel {
  name: Channel;
  render(message: ChannelMessage): unknown;
  deliver: DeliveryHandler;
}

export function outboxKind(channel: Channel): string {
  return `notification.${channel}`;
}

export const SEVERITY_LABEL: Record<ChannelMessage['severity'], string> = {
  info: 'Info',
  warning: 'Warning',
  error: 'Error',
  critical: 'Critical',
};

export function truncate(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
