// The four notification channels, keyed by name, and their registration as outbox handlers.
import type { OutboundPolicy } from '../../core/net/outbound-guard.js';
import type { Outbox } from '../../core/outbox/outbox.js';
import type { Channel } from '../rules.js';
import { outboxKind, type NotificationChannel } from './channel.js';
import { chatAChannel } from './chat-a.js';
import { chatBChannel } from './chat-b.js';
import { emailChannel, type EmailSettings } from './email.js';
import { webhookChannel } from './webhook.js';

export interface ChannelSettings {
  email: EmailSettings;
  policy: OutboundPolicy;
  webhookSecretFor(accountId: string): Promise<string | null>;
}

export interface Channels {
  byName: Record<Channel, NotificationChannel>;
  close(): void;
}

export function createChannels(settings: ChannelSettings, outbox: Outbox): Channels {
  const email = emailChannel(settings.email);
  const byName: Record<Channel, NotificationChannel> = {
    email,
    chat_a: chatAChannel(settings.policy),
    chat_b: chatBChannel(settings.policy),
    webhook: webhookChannel(settings.policy, settings.webhookSecretFor),
  };
  for (const channel of Object.values(byName)) outbox.handle(outboxKind(channel.name), channel.deliver);
  return { byName, close: () => email.close() };
}
