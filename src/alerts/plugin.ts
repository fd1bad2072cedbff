// Wires alerts into the app: the outbox (its worker started when the app is ready and drained on close),
// the notification channels as outbox handlers, the alert and notification services and their routes.
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Storage } from '../core/db/database.js';
import type { Logger } from '../core/logging.js';
import { Outbox } from '../core/outbox/outbox.js';
import { TextSealer } from '../core/sealed-text.js';
import { derivedKey } from '../secrets/key.js';
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

/** The alert and notification services over their outbox, without a server (the CLI raises through them too). */
export function createAlerts(config: Config, storage: Storage, log: Logger, secretsKey: Buffer): AlertsFeature & { closeChannels(): void } {
  const policy = { allowPrivate: config.allowPrivateWebhooks, allowHttp: config.allowHttpWebhooks };
  const outbox = new Outbox(storage.db, storage.sqlDialect, config.outbox, log, new TextSealer(derivedKey(secretsKey, 'paddock outbox targets')));
  let notifications: NotificationService | null = null;
  const channels = createChannels(
    {
      email: { smtpUrl: config.smtpUrl, from: config.emailFrom, timeoutMs: config.outbox.attemptTimeoutMs },
      policy,
      webhookSecretFor: (accountId) => notifications!.webhookSecret(accountId),
    },
    outbox,
  );
  const sealer = new TextSealer(derivedKey(secretsKey, 'paddock notification webhook secrets'));
  notifications = new NotificationService(storage.db, storage.sqlDialect, outbox, channels.byName, policy, sealer);
  const alerts = new AlertService(storage.db, notifications, outbox);
  return { alerts, notifications, outbox, closeChannels: () => channels.close() };
}

export async function registerAlerts(app: FastifyInstance, config: Config, storage: Storage, secretsKey: Buffer): Promise<AlertsFeature> {
  const { alerts, notifications, outbox, closeChannels } = createAlerts(config, storage, app.log, secretsKey);
  await notifications.sealStoredSecrets();
  await outbox.sealStoredTargets();
  await app.register(alertRoutes(alerts));
  await app.register(notificationRoutes(notifications));
  app.addHook('onReady', async () => outbox.start());
  app.addHook('onClose', async () => {
    await outbox.stop();
    closeChannels();
  });
  return { alerts, notifications, outbox };
}
