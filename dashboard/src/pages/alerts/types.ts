// Shapes of the alert and notification endpoints the pages read, from src/alerts/schemas.ts and
// src/alerts/notifications/schemas.ts.
export type AlertSeverity = 'info' | 'warning' | 'error' | 'critical';

export const CHANNELS = ['email', 'chat_a', 'chat_b', 'webhook'] as const;
export type Channel = (typeof CHANNELS)[number];

export const CHANNEL_LABELS: Record<Channel, string> = { email: 'Email', chat_a: 'Chat A (Slack-style)', chat_b: 'Chat B (Discord-style)', webhook: 'Webhook' };

export interface Alert {
  id: string;
  type: string;
  severity: AlertSeverity;
  message: string;
  sandbox_id: string | null;
  resolved: boolean;
  created_at: string;
  resolved_at: string | null;
  resource: { kind: string; id: string };
  details: Record<string, unknown>;
}

export interface AlertRule {
  id: string;
  type: string;
  enabled: boolean;
  threshold: number | null;
  threshold_unit: 'budget_fraction' | 'trust_score' | 'quota_fraction' | null;
  channels: Channel[];
  created_at: string;
  updated_at: string;
}

export interface Notification {
  id: string;
  alert_id: string | null;
  type: string;
  severity: AlertSeverity;
  title: string;
  message: string;
  sandbox_id: string | null;
  read: boolean;
  read_at: string | null;
  created_at: string;
}

export interface NotificationConfig {
  channels: {
    email: { enabled: boolean; address: string | null };
    chat_a: { enabled: boolean; webhook_url: string | null };
    chat_b: { enabled: boolean; webhook_url: string | null };
    webhook: { enabled: boolean; url: string | null; secret: string };
  };
  updated_at: string;
}
