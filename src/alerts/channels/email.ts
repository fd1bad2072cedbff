// `email`: a plain-text and HTML message sent over SMTP (SMTP_URL) with nodemailer. SMTP 5xx replies
// (no such mailbox, refused) are permanent; connection problems and 4xx replies are retried.
import nodemailer from 'nodemailer';
import { DeliveryFailed } from '../../core/outbox/outbox.js';
import { SEVERITY_LABEL, type ChannelMessage, type NotificationChannel } from './channel.js';

export interface EmailPayload {
  subject: string;
  text: string;
  html: string;
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

export function renderEmail(message: ChannelMessage): EmailPayload {
  const facts: [string, string][] = [
    ['Severity', SEVERITY_LABEL[message.severity]],
    ['Type', message.type],
    ...(message.sandboxId ? ([['Sandbox', message.sandboxId]] as [string, string][]) : []),
    ['Time', message.createdAt],
    ['Notification', message.notificationId],
  ];
  return {
    subject: `[Paddock] ${message.title} (${SEVERITY_LABEL[message.severity].toLowerCase()})`.replace(/[\r\n]+/g, ' '),
    text: `${message.message}\n\n${facts.map(([name, value]) => `${name}: ${value}`).join('\n')}\n`,
    html: `<p>${escapeHtml(message.message)}</p><table>${facts.map(([name, value]) => `<tr><th align="left">${name}</th><td>${escapeHtml(value)}</td></tr>`).join('')}</table>`,
  };
}

export interface EmailSettings {
  smtpUrl: string | null;
  from: string;
  timeoutMs: number;
}

export function emailChannel(settings: EmailSettings): NotificationChannel & { close(): void } {
  const transport = settings.smtpUrl
    ? nodemailer.createTransport({ url: settings.smtpUrl, connectionTimeout: settings.timeoutMs, greetingTimeout: settings.timeoutMs, socketTimeout: settings.timeoutMs } as never)
    : null;
  return {
    name: 'email',
    render: renderEmail,
    close: () => transport?.close(),
    deliver: async (delivery) => {
      if (!transport) throw new DeliveryFailed('email is not configured on this server (SMTP_URL is unset)', { permanent: true });
      const payload = delivery.payload as EmailPayload;
      try {
        const info = await transport.sendMail({
          from: settings.from,
          to: delivery.target,
          subject: payload.subject,
          text: payload.text,
          html: payload.html,
          headers: { 'X-Paddock-Delivery': delivery.id },
        });
        return { statusCode: 250, responseExcerpt: String(info.response ?? '') };
      } catch (error) {
        const code = (error as { responseCode?: number }).responseCode;
        throw new DeliveryFailed(`SMTP: ${(error as Error).message}`, { statusCode: code, permanent: code !== undefined && code >= 500 });
      }
    },
  };
}
