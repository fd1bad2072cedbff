// `chat_b`: a Discord-style webhook. The body is `{content, embeds, allowed_mentions}`; mentions are
// disabled so text coming from a sandbox can never ping @everyone.
import type { OutboundPolicy } from '../../core/net/outbound-guard.js';
import { postJsonDelivery } from '../../core/outbox/http-delivery.js';
import { SEVERITY_LABEL, truncate, type ChannelMessage, type NotificationChannel } from './channel.js';

const SEVERITY_COLOR: Record<ChannelMessage['severity'], number> = {
  info: 0x3b82f6,
  warning: 0xf59e0b,
  error: 0xef4444,
  critical: 0x991b1b,
};

export function renderChatB(message: ChannelMessage) {
  const fields = [
    { name: 'Severity', value: SEVERITY_LABEL[message.severity], inline: true },
    { name: 'Type', value: message.type, inline: true },
    ...(message.sandboxId ? [{ name: 'Sandbox', value: message.sandboxId, inline: true }] : []),
  ];
  return {
    content: truncate(`**${message.title}**`, 2000),
    embeds: [
      {
        title: truncate(message.title, 256),
        description: truncate(message.message, 4096),
        color: SEVERITY_COLOR[message.severity],
        timestamp: message.createdAt,
        fields,
        footer: { text: 'Paddock' },
      },
    ],
    allowed_mentions: { parse: [] as string[] },
  };
}

export function chatBChannel(policy: OutboundPolicy): NotificationChannel {
  return {
    name: 'chat_b',
    render: renderChatB,
    deliver: (delivery) => postJsonDelivery(delivery.target, JSON.stringify(delivery.payload), { policy, timeoutMs: delivery.timeoutMs }),
  };
}
