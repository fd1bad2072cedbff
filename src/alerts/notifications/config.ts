// The notification config: per channel an `enabled` flag and its target (email address, chat webhook
// URL, own webhook URL with its signing secret). Updates merge into what is stored and are validated
// as a whole: an enabled channel needs a target, URLs must pass the outbound guard.
import type { Updateable } from 'kysely';
import type { NotificationConfigsTable } from '../../core/db/schema.js';
import { Invalid } from '../../core/errors.js';
import { checkOutboundUrl, OutboundRefused, type OutboundPolicy } from '../../core/net/outbound-guard.js';
import { generateWebhookSecret, secretKey } from '../../core/webhooks/signature.js';
import type { Channel } from '../rules.js';
import type { ConfigRow } from './store.js';

export interface ConfigUpdate {
  channels: {
    email?: { enabled?: boolean; address?: string | null };
    chat_a?: { enabled?: boolean; webhook_url?: string | null };
    chat_b?: { enabled?: boolean; webhook_url?: string | null };
    webhook?: { enabled?: boolean; url?: string | null; secret?: string; rotate_secret?: boolean };
  };
}

export function defaultConfig(accountId: string, now: string): ConfigRow {
  return {
    account_id: accountId,
    email_enabled: 0,
    email_address: null,
    chat_a_enabled: 0,
    chat_a_webhook_url: null,
    chat_b_enabled: 0,
    chat_b_webhook_url: null,
    webhook_enabled: 0,
    webhook_url: null,
    webhook_secret: generateWebhookSecret(),
    created_at: now,
    updated_at: now,
  };
}

export function configView(row: ConfigRow) {
  return {
    channels: {
      email: { enabled: row.email_enabled === 1, address: row.email_address },
      chat_a: { enabled: row.chat_a_enabled === 1, webhook_url: row.chat_a_webhook_url },
      chat_b: { enabled: row.chat_b_enabled === 1, webhook_url: row.chat_b_webhook_url },
      webhook: { enabled: row.webhook_enabled === 1, url: row.webhook_url, secret: row.webhook_secret },
    },
    updated_at: row.updated_at,
  };
}

/** Where `channel` delivers for this account, or null when it is disabled or has no target. */
export function channelTarget(row: ConfigRow | undefined, channel: Channel): string | null {
  if (!row) return null;
  switch (channel) {
    case 'email':
      return row.email_enabled ? row.email_address : null;
    case 'chat_a':
      return row.chat_a_enabled ? row.chat_a_webhook_url : null;
    case 'chat_b':
      return row.chat_b_enabled ? row.chat_b_webhook_url : null;
    case 'webhook':
      return row.webhook_enabled ? row.webhook_url : null;
  }
}

function checkedUrl(field: string, value: string | null | undefined, policy: OutboundPolicy): string | null | undefined {
  if (value === undefined || value === null) return value;
  try {
    return checkOutboundUrl(value, policy).toString();
  } catch (error) {
    if (error instanceof OutboundRefused) throw new Invalid(field, error.message);
    throw error;
  }
}

function pick<T>(given: T | undefined, stored: T): T {
  return given === undefined ? stored : given;
}

/** The stored row after `update`, validated; throws Invalid naming the field. */
export function applyConfigUpdate(row: ConfigRow, update: ConfigUpdate, policy: OutboundPolicy, now: string): Updateable<NotificationConfigsTable> {
  const { email, chat_a, chat_b, webhook } = update.channels;
  const at = (channel: string, field: string) => `body.channels.${channel}.${field}`;
  const next = {
    email_enabled: pick(email?.enabled, row.email_enabled === 1),
    email_address: pick(email?.address, row.email_address),
    chat_a_enabled: pick(chat_a?.enabled, row.chat_a_enabled === 1),
    chat_a_webhook_url: pick(checkedUrl(at('chat_a', 'webhook_url'), chat_a?.webhook_url, policy), row.chat_a_webhook_url),
    chat_b_enabled: pick(chat_b?.enabled, row.chat_b_enabled === 1),
    chat_b_webhook_url: pick(checkedUrl(at('chat_b', 'webhook_url'), chat_b?.webhook_url, policy), row.chat_b_webhook_url),
    webhook_enabled: pick(webhook?.enabled, row.webhook_enabled === 1),
    webhook_url: pick(checkedUrl(at('webhook', 'url'), webhook?.url, policy), row.webhook_url),
    webhook_secret: row.webhook_secret,
  };
  if (next.email_enabled && !next.email_address) throw new Invalid(at('email', 'address'), 'is required to enable email');
  if (next.chat_a_enabled && !next.chat_a_webhook_url) throw new Invalid(at('chat_a', 'webhook_url'), 'is required to enable chat_a');
  if (next.chat_b_enabled && !next.chat_b_webhook_url) throw new Invalid(at('chat_b', 'webhook_url'), 'is required to enable chat_b');
  if (next.webhook_enabled && !next.webhook_url) throw new Invalid(at('webhook', 'url'), 'is required to enable webhook');
  if (webhook?.secret !== undefined && webhook.rotate_secret) throw new Invalid(at('webhook', 'rotate_secret'), 'cannot be combined with secret');
  if (webhook?.secret !== undefined) {
    if (!secretKey(webhook.secret)) throw new Invalid(at('webhook', 'secret'), 'must be whsec_ followed by the base64 encoding of 24 to 64 bytes');
    next.webhook_secret = webhook.secret;
  }
  if (webhook?.rotate_secret) next.webhook_secret = generateWebhookSecret();
  return {
    email_enabled: next.email_enabled ? 1 : 0,
    email_address: next.email_address,
    chat_a_enabled: next.chat_a_enabled ? 1 : 0,
    chat_a_webhook_url: next.chat_a_webhook_url,
    chat_b_enabled: next.chat_b_enabled ? 1 : 0,
    chat_b_webhook_url: next.chat_b_webhook_url,
    webhook_enabled: next.webhook_enabled ? 1 : 0,
    webhook_url: next.webhook_url,
    webhook_secret: next.webhook_secret,
    updated_at: now,
  };
}
