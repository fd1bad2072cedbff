// `chat_a`: a Slack-style incoming webhook. The body is `{text, blocks}`: `text` is the plain fallback
// shown in push notifications, `blocks` the formatted message (header, section, context).
import type { OutboundPolicy } from '../../core/net/outbound-guard.js';
import { postJsonDelivery } from '../../core/outbox/http-delivery.js';
import { SEVERITY_LABEL, truncate, type ChannelMessage, type NotificationChannel } from './channel.js';

/** Slack's mrkdwn treats &, < and > as markup; everything from a sandbox is shown literally. */
function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function renderChatA(message: ChannelMessage) {
  const context = [`*${SEVERITY_LABEL[message.severity]}*`, `\`${message.type}\``, ...(message.sandboxId ? [`sandbox \`${message.sandboxId}\``] : []), message.createdAt];
  return {
    text: truncate(`[${SEVERITY_LABEL[message.severity]}] ${message.title}: ${message.message}`, 3000),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: truncate(message.title, 150) } },
      { type: 'section', text: { type: 'mrkdwn', text: truncate(escapeMrkdwn(message.message), 3000) } },
      { type: 'context', elements: [{ type: 'mrkdwn', text: escapeMrkdwn(context.join(' · ')) }] },
    ],
  };
}

export function chatAChannel(policy: OutboundPolicy): NotificationChannel {
  return {
    name: 'chat_a',
    render: renderChatA,
    deliver: (delivery) => postJsonDelivery(delivery.target, JSON.stringify(delivery.payload), { policy, timeoutMs: delivery.timeoutMs }),
  };
}
