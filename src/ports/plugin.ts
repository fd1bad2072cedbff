// Wires ports and previews into the app: the detector (started when the app is ready, stopped on
// close), the ports endpoints, and the preview proxy, which the preview front door (preview/front-door.ts,
// registered by app.ts) puts in front of Fastify.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Config } from '../config.js';
import type { Database } from '../core/db/schema.js';
import type { LimiterFactory } from '../core/rate-limit.js';
import { nowIso } from '../core/time.js';
import type { SandboxRuntime } from '../runtime/runtime.js';
import { PreviewHosts } from '../preview/host.js';
import { PreviewProtection } from '../preview/protection.js';
import { PreviewProxy } from '../preview/proxy.js';
import { SandboxDirectory } from '../sandboxes/directory.js';
import type { SandboxService } from '../sandboxes/service.js';
import { PortDetector } from './detector.js';
import { portRoutes } from './routes.js';
import { PortService } from './service.js';
import * as store from './store.js';

export interface PortsAndPreviewsOptions {
  config: Config;
  db: Kysely<Database>;
  runtime: SandboxRuntime;
  sandboxes: SandboxService;
  limiters: LimiterFactory;
}

export async function registerPortsAndPreviews(
  app: FastifyInstance,
  { config, db, runtime, sandboxes, limiters }: PortsAndPreviewsOptions,
): Promise<{ detector: PortDetector; hosts: PreviewHosts; proxy: PreviewProxy }> {
  const directory = new SandboxDirectory(db);
  const detector = new PortDetector(db, directory, runtime, app.log, config.hostId);
  const hosts = new PreviewHosts(config, () => {
    const address = app.server.address();
    return typeof address === 'object' && address ? address.port : config.port;
  });
  const secret = await store.serverSetting(db, 'preview_cookie_secret', () => randomBytes(32).toString('base64'), nowIso());
  const requests = await limiters.create({ keyPrefix: 'preview_requests', points: config.previewRateLimitPerMinute, durationSeconds: 60 });
  const failures = await limiters.create({ keyPrefix: 'preview_password_failures', points: config.previewPasswordMaxFailures, durationSeconds: config.previewPasswordFailureWindowSeconds });
  const proxy = new PreviewProxy({
    hosts,
    detector,
    protection: new PreviewProtection(Buffer.from(secret, 'base64'), failures, config.previewScheme === 'https'),
    requests,
    runtime,
    sandboxStatus: (id) => directory.status(id),
    recordActivity: (id) => sandboxes.recordActivity(id),
    log: app.log,
  });

  sandboxes.lifecycle.subscribe({
    name: 'port scanning',
    onEvent: (event) => {
      if (event.to === 'paused' || event.to === 'error' || event.to === 'destroyed') detector.sandboxStopped(event.sandboxId);
    },
  });
  await app.register(portRoutes(new PortService(db, sandboxes, detector, hosts)));
  app.addHook('onReady', async () => detector.start());
  app.addHook('onClose', async () => detector.stop());
  return { detector, hosts, proxy };
}
