// Wires alerts into the app: the outbox (its worker started when the app is ready and drained on close),
// the notification channels as outbox handlers, the alert and notification services and their routes.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Storage } from '../core/db/database.js';
import { Outbox } from '../core/outbox/outbox.js';
import { createChannels } from './channels/index.js';
import { notificationRoutes } from './notifications/routes.js';
import { NotificationService } from './notifications/service.js';
import { alertRoutes } from './routes.js';
import { AlertService } from './service.js';

export interface AlertsFeature {
  alerts: AlertService;
  notifications: NotificationService;
  outbox: Outbox;
}

export async function registerAlerts(app: FastifyInstance, config: Config, storage: Storage): Promise<AlertsFeature> {
  const policy = { allowPrivate: config.allowPrivateWebhooks, allowHttp: config.allowHttpWebhooks };
  const outbox = new Outbox(storage.db, storage.sqlDialect, config.outbox, app.log);
  let notifications: NotificationService | null = null;
  const channels = createChannels(
    {
      email: { smtpUrl: config.smtpUrl, from: config.emailFrom, timeoutMs: config.outbox.attemptTimeoutMs },
      policy,
      webhookSecretFor: (accountId) => notifications!.webhookSecret(accountId),
    },
    outbox,
  );
  notifications = new NotificationService(storage.db, storage.sqlDialect, outbox, channels.byName, policy);
  const alerts = new AlertService(storage.db, notifications, outbox);

  await app.register(alertRoutes(alerts));
  await app.register(notificationRoutes(notifications));
  app.addHook('onReady', async () => outbox.start());
  app.addHook('onClose', async () => {
    await outbox.stop();
    channels.close();
  });
  return { alerts, notifications, outbox };
}
